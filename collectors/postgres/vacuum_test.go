package postgres

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/result"
)

// Messages as PostgreSQL 13.23 and 16.14 sent them for VACUUM (VERBOSE) at
// client_min_messages = debug2 (the live matrix checks the figures on
// every major; these hold the parser to each wording, TOAST left out).
var (
	vacTable = collectors.Object{Level: collectors.Table, Schema: "s", Name: "t"}
	vacIdx   = []collectors.Object{{Level: collectors.Index, Schema: "s", Name: "t_v", Table: "t"}}
	vac13    = []*pgconn.Notice{
		{Severity: "INFO", Message: `vacuuming "s.t"`},
		{Severity: "INFO", Message: `scanned index "t_v" to remove 19500 row versions`},
		{Severity: "INFO", Message: `"t": removed 19500 row versions in 107 pages`},
		{Severity: "INFO", Message: `index "t_v" now contains 1500 row versions in 60 pages`, Detail: "19500 index row versions were removed.\n49 index pages have been deleted, 0 are currently reusable.\nCPU: user: 0.00 s"},
		{Severity: "INFO", Message: `"t": found 18500 removable, 1500 nonremovable row versions in 114 out of 114 pages`},
		{Severity: "INFO", Message: `"t": truncated 114 to 10 pages`},
		{Severity: "INFO", Message: `"pg_toast_16384": found 7 removable, 0 nonremovable row versions in 3 out of 3 pages`},
	}
	vac16 = []*pgconn.Notice{
		{Severity: "DEBUG", Message: `table "t": removed 19500 dead item identifiers in 107 pages`},
		{Severity: "DEBUG", Message: `index "t_v" now contains 1500 row versions in 60 pages`, Detail: "19500 index row versions were removed.\n49 index pages were newly deleted.\n49 index pages are currently deleted, of which 0 are currently reusable."},
		{Severity: "INFO", Message: "finished vacuuming \"postgres.s.t\": index scans: 1\npages: 104 removed, 10 remain, 114 scanned (100.00% of total)\ntuples: 18500 removed, 1500 remain, 0 are dead but not yet removable\nbuffer usage: 1167 hits, 0 misses, 4 dirtied\nWAL usage: 637 records, 1 full page images, 207359 bytes"},
		{Severity: "INFO", Message: "finished vacuuming \"postgres.pg_toast.pg_toast_16384\": index scans: 0\npages: 0 removed, 0 remain, 0 scanned (100.00% of total)\ntuples: 9 removed"},
	}
)

func TestParseVacuumEachWording(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		major int
		msgs  []*pgconn.Notice
		want  map[string]float64
		pages result.Exactness
	}{
		{13, vac13, map[string]float64{"vacuum_dead_rows_removed": 18500, "vacuum_pages_scanned": 114, "vacuum_dead_items_removed": 19500, "vacuum_pages_removed": 104, "vacuum_index_entries_removed": 19500, "vacuum_index_pages_deleted": 49}, result.Approx},
		{16, vac16, map[string]float64{"vacuum_dead_rows_removed": 18500, "vacuum_pages_scanned": 114, "vacuum_dead_items_removed": 19500, "vacuum_pages_removed": 104, "vacuum_index_entries_removed": 19500, "vacuum_index_pages_deleted": 49, "vacuum_buffers_dirtied": 4}, result.Exact},
	} {
		cs, warns := parseVacuum(tc.msgs, vacTable, vacIdx, tc.major)
		if len(warns) > 0 {
			t.Errorf("%d: warnings %v", tc.major, warns)
		}
		got := map[string]collectors.Counter{}
		for _, c := range cs {
			if _, dup := got[c.Metric]; dup {
				t.Errorf("%d: %s twice", tc.major, c.Metric)
			}
			got[c.Metric] = c
		}
		for m, v := range tc.want {
			if c, ok := got[m]; !ok || c.Value != v {
				t.Errorf("%d: %s = %v (present %v), want %v", tc.major, m, c.Value, ok, v)
			}
		}
		if len(got) != len(tc.want) {
			t.Errorf("%d: %d figures, want %d: %v", tc.major, len(got), len(tc.want), got)
		}
		if e := got["vacuum_index_pages_deleted"].Exactness; e != tc.pages {
			t.Errorf("%d: index pages deleted %s, want %s", tc.major, e, tc.pages)
		}
	}
}

// No messages (a connection whose notices are not routed) is "unknown",
// never zero.
func TestParseVacuumWithoutMessagesSaysSo(t *testing.T) {
	t.Parallel()
	cs, warns := parseVacuum(nil, vacTable, vacIdx, 16)
	if len(cs) != 0 || len(warns) != 1 || !strings.Contains(warns[0], "no summary message") {
		t.Errorf("got %v, warnings %v", cs, warns)
	}
}
