package measure

import (
	"strings"
	"testing"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/result"
)

// The job's database-level rows deleted: summed from the tables where the
// server has no database-wide counter (PostgreSQL: absent, which a reader
// took as 0), held to the driver's count either way.
func TestEpilogueRows(t *testing.T) {
	metrics := map[string]string{"rows_deleted": "job_rows_deleted", "log_bytes": "job_log_bytes"}
	writes := []collectors.Write{{Statement: "del_c", Table: "c", Kind: "delete", Rows: 180}, {Statement: "del_u", Table: "u", Kind: "delete", Rows: 180}}
	tbl := func(obj string, v float64, e result.Exactness) (collectors.Key, result.Metric) {
		return collectors.Key{Level: collectors.Table, Object: obj, Metric: "rows_deleted"}, result.New(v, e, "pg_stat_user_tables.n_tup_del")
	}
	dbKey := collectors.Key{Level: collectors.DB, Metric: "rows_deleted"}
	delta := func(vals ...any) *collectors.Delta {
		d := &collectors.Delta{Values: map[collectors.Key]result.Metric{}}
		for i := 0; i < len(vals); i += 2 {
			d.Values[vals[i].(collectors.Key)] = vals[i+1].(result.Metric)
		}
		return d
	}
	ku, mu := tbl("s.u", 180, result.Exact)
	kc, mc := tbl("s.c", 180, result.Exact)
	kcShort, mcShort := tbl("s.c", 150, result.Approx)
	for _, tc := range []struct {
		name  string
		d     *collectors.Delta
		value float64
		e     result.Exactness
		note  string
	}{
		{"tables summed", delta(ku, mu, kc, mc), 360, result.Derived, "no database-wide counter"},
		{"a table short", delta(ku, mu, kcShort, mcShort), 330, result.Approx, "changed 360 rows (the driver's count), the server counted 330: the server's statistics had not all arrived"},
		{"server-wide equal", delta(dbKey, result.New(360, result.Exact, "Handler_delete"), ku, mu), 360, result.Exact, ""},
		{"server-wide more", delta(dbKey, result.New(365, result.Exact, "Handler_delete")), 365, result.Approx, "other sessions"},
		{"a table unavailable", delta(ku, mu, kc, result.NA("x", "reset")), 0, result.Unavailable, "s.c is unavailable (reset)"},
		{"nothing", delta(), 0, result.Unavailable, "no database-wide rows_deleted and no table's"},
	} {
		got := epilogueRows(tc.d, writes, metrics, "job_")
		if len(got) != 1 {
			t.Fatalf("%s: %v, want only job_rows_deleted", tc.name, got)
		}
		m := got["job_rows_deleted"]
		if m.V() != tc.value || m.Exactness != tc.e || !strings.Contains(m.Note, tc.note) || !strings.HasPrefix(m.Source, "job_window") {
			t.Errorf("%s: %v %s (%s; %s), want %v %s with %q", tc.name, m.V(), m.Exactness, m.Source, m.Note, tc.value, tc.e, tc.note)
		}
	}
}
