package postgres

import (
	"context"
	"database/sql/driver"
	"errors"
	"strings"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
)

func server(v int) dialects.Server {
	s := dialects.Server{Dialect: pg.Name, VersionNum: v, User: "app"}
	s.Set(pg.CapPrimary, true, "")
	s.Set(pg.CapStatWAL, v >= 140000, "pg_stat_wal needs PostgreSQL 14 or later")
	s.Set(pg.CapWalinspect, v >= 150000, "pg_walinspect needs PostgreSQL 15 or later")
	s.Set(pg.CapWalBlockInfo, v >= 160000, "")
	s.SetProp(pg.PropDatabaseOID, "5")
	s.SetProp(pg.PropWalinspectSchema, "public")
	return s
}

// arrays lets slices through as pgx does (text[] and bigint[] parameters).
type arrays struct{}

func (arrays) ConvertValue(v any) (driver.Value, error) {
	switch v.(type) {
	case []string, []int64:
		return v, nil
	}
	return driver.DefaultParameterConverter.ConvertValue(v)
}

func byKey(cs []collectors.Counter) map[string]collectors.Counter {
	out := map[string]collectors.Counter{}
	for _, c := range cs {
		out[c.Key.String()] = c
	}
	return out
}

// The per-relation counters come keyed by oid and are joined to the
// catalog's objects: a relation the catalog left out (another table, one
// created since) gives nothing, and a view's NULL column gives no counter.
func TestPgStatRelationsByVersion(t *testing.T) {
	t.Parallel()
	cols := []string{"oid", "relkind", "n_tup_ins", "n_tup_upd", "n_tup_hot_upd", "n_tup_del", "n_tup_newpage_upd", "autovacuum_count", "autoanalyze_count", "vacuum_count",
		"idx_scan", "idx_tup_read", "idx_tup_fetch", "blks_hit", "blks_read"}
	objs := []collectors.Object{
		{Level: collectors.Table, Schema: "kc", Name: "offline_user_session", ID: "16399", Info: map[string]string{"oid": "16400"}},
		{Level: collectors.Index, Schema: "kc", Name: "offline_user_session_pkey", Table: "offline_user_session", ID: "16405", Info: map[string]string{"oid": "16405", "method": "btree"}},
		{Level: collectors.Table, Schema: "kc", Name: "events", ID: "0", Info: map[string]string{"oid": "16600"}},
	}
	for _, tc := range []struct {
		v       int
		newpage any
	}{{130014, nil}, {150020, nil}, {160004, int64(7)}, {180000, int64(7)}} {
		q, m := mocksql.WithConverter(t, arrays{})
		m.ExpectQuery(mocksql.SQL(t, pg.Name, "stats_reset", tc.v)).WillReturnRows(sqlmock.NewRows([]string{"coalesce"}).AddRow("2026-11-30 10:00:00+00"))
		m.ExpectQuery(mocksql.SQL(t, pg.Name, "pg_stat_relations", tc.v)).WithArgs([]string{"kc"}).
			WillReturnRows(sqlmock.NewRows(cols).
				AddRow(int64(16400), "r", int64(1500), int64(15000), int64(14800), int64(150), tc.newpage, int64(0), int64(1), int64(2), nil, nil, nil, int64(9000), int64(12)).
				AddRow(int64(16405), "i", nil, nil, nil, nil, nil, nil, nil, nil, int64(40), int64(41), int64(39), int64(700), int64(3)).
				AddRow(int64(16600), "p", int64(0), int64(0), int64(0), int64(0), tc.newpage, int64(0), int64(0), int64(0), nil, nil, nil, nil, nil).
				AddRow(int64(16500), "r", int64(1), int64(1), int64(0), int64(0), tc.newpage, int64(0), int64(0), int64(0), nil, nil, nil, int64(1), int64(0)))
		cs, err := PgStatRelations{}.CollectObjects(context.Background(), q, server(tc.v), objs)
		if err != nil {
			t.Fatal(err)
		}
		got := byKey(cs)
		if c := got["table:kc.offline_user_session:hot_updates"]; c.Value != 14800 || c.Source != "pg_stat_user_tables.n_tup_hot_upd" || c.Identity != "16400" || c.Reset != "2026-11-30 10:00:00+00" || c.Exactness != "exact" {
			t.Errorf("%d: hot_updates %+v", tc.v, c)
		}
		if c := got["table:kc.offline_user_session:buffer_reads"]; c.Value != 12 || c.Source != "pg_statio_user_tables.heap_blks_read (every session's accesses)" {
			t.Errorf("%d: table buffer_reads %+v", tc.v, c)
		}
		if c := got["index:kc.offline_user_session_pkey:scans"]; c.Value != 40 || c.Source != "pg_stat_user_indexes.idx_scan" || c.Identity != "16405" {
			t.Errorf("%d: index scans %+v", tc.v, c)
		}
		if c := got["index:kc.offline_user_session_pkey:buffer_hits"]; c.Value != 700 || c.Source != "pg_statio_user_indexes.idx_blks_hit (every session's accesses)" {
			t.Errorf("%d: index buffer_hits %+v", tc.v, c)
		}
		if _, ok := got["index:kc.offline_user_session_pkey:rows_inserted"]; ok {
			t.Errorf("%d: an index got a table's row count", tc.v)
		}
		if _, ok := got["table:kc.events:buffer_hits"]; ok {
			t.Errorf("%d: a partitioned table (not in pg_statio_user_tables) got buffer hits", tc.v)
		}
		if _, ok := got["table:kc.events:rows_inserted"]; !ok {
			t.Errorf("%d: the partitioned table's row counts are missing", tc.v)
		}
		// 7 (8 with newpage) + 2 of the table, 3 + 2 of the index, 7 (8) of the
		// partitioned table, and none of oid 16500, which the catalog lacks.
		if want := 21 + 2*b(tc.v >= 160000); len(got) != want {
			t.Errorf("%d: %d counters, want %d: %v", tc.v, len(got), want, got)
		}
		_, hasNewpage := got["table:kc.offline_user_session:newpage_updates"]
		if hasNewpage != (tc.v >= 160000) {
			t.Errorf("%d: newpage_updates present=%v", tc.v, hasNewpage)
		}
	}
}

func b(v bool) int {
	if v {
		return 1
	}
	return 0
}

func TestPgStatWALUnsupportedBefore14(t *testing.T) {
	t.Parallel()
	err := PgStatWAL{}.Supports(server(130014))
	if !errors.Is(err, dialects.ErrUnsupported) || !strings.Contains(err.Error(), "14") {
		t.Errorf("13 must be unsupported with the reason: %v", err)
	}
	q, m := mocksql.WithConverter(t, arrays{})
	m.ExpectQuery(mocksql.SQL(t, pg.Name, "pg_stat_wal", 150000)).WillReturnRows(
		sqlmock.NewRows([]string{"wal_records", "wal_fpi", "wal_bytes", "wal_buffers_full", "stats_reset"}).
			AddRow(int64(10), int64(2), int64(4096), int64(0), "2026-11-01 00:00:00+00"))
	cs, err := PgStatWAL{}.Collect(context.Background(), q, server(150000), collectors.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	got := byKey(cs)
	if got["database:log_records"].Value != 10 || got["database:fpi_count"].Value != 2 || got["database:log_bytes_stat"].Value != 4096 {
		t.Errorf("%v", got)
	}
	if got["database:log_records"].Reset == "" {
		t.Error("stats_reset must be carried so a reset is detected")
	}
}

func TestPgStatRelationsErrorIsReturned(t *testing.T) {
	t.Parallel()
	q, m := mocksql.WithConverter(t, arrays{})
	m.ExpectQuery(mocksql.SQL(t, pg.Name, "stats_reset", 150000)).WillReturnRows(sqlmock.NewRows([]string{"coalesce"}).AddRow(""))
	m.ExpectQuery(mocksql.SQL(t, pg.Name, "pg_stat_relations", 150000)).WithArgs([]string{"public"}).WillReturnError(errors.New("permission denied for function pg_stat_get_tuples_inserted"))
	objs := []collectors.Object{{Level: collectors.Table, Schema: "public", Name: "t", ID: "1", Info: map[string]string{"oid": "1"}}}
	if _, err := (PgStatRelations{}).CollectObjects(context.Background(), q, server(150000), objs); err == nil {
		t.Fatal("expected the error")
	}
}

func TestWalinspectAttributesRecords(t *testing.T) {
	t.Parallel()
	for _, v := range []int{150020, 160004} {
		q, m := mocksql.WithConverter(t, arrays{})
		text := strings.ReplaceAll(mocksql.SQL(t, pg.Name, "pg_walinspect", v), "{{walinspect}}", `"public"`)
		// One pass over pg_get_wal_records_info: a regular expression per
		// record or a join with pg_get_wal_block_info made the read 12-19x
		// the function's own.
		if strings.Contains(text, "pg_get_wal_block_info") || strings.Contains(text, "regexp") || !strings.Contains(text, "split_part(block_ref") {
			t.Fatalf("%d: the relation must be parsed from block_ref with split_part", v)
		}
		// The split by transaction comes from the same read, not a second one.
		if n := strings.Count(text, "pg_get_wal_records_info("); n != 1 {
			t.Fatalf("%d: pg_get_wal_records_info is called %d times, want once", v, n)
		}
		// 15 describes a leaf split as "level 0, ...", 16+ as "level: 0, ...".
		if !strings.Contains(text, "'level 0,%'") || !strings.Contains(text, "'level: 0,%'") {
			t.Fatalf("%d: split levels must be read in both majors' words", v)
		}
		m.ExpectQuery(mocksql.SQL(t, pg.Name, "flush_lsn", v)).WithArgs("0/200").WillReturnRows(sqlmock.NewRows([]string{"d"}).AddRow(int64(0)))
		cols := []string{"kind", "xid", "dboid", "relfilenode", "xact", "count", "bytes", "fpi", "fpis", "leaf", "split", "newpage"}
		m.ExpectQuery(text).WithArgs("0/100", "0/200", int64(5), sqlmock.AnyArg(), false).WillReturnRows(sqlmock.NewRows(cols).
			AddRow("rel", int64(0), int64(5), int64(1001), "scope", 100, 10000, 0, 0, 0, 0, 12).    // the table's heap
			AddRow("rel", int64(0), int64(5), int64(1002), "scope", 110, 8000, 2000, 1, 105, 5, 0). // its index
			AddRow("rel", int64(0), int64(5), int64(1003), "scope", 3, 300, 0, 0, 0, 0, 0).         // its TOAST table
			AddRow("rel", int64(0), int64(0), int64(0), "scope", 50, 1700, 0, 0, 0, 0, 0).          // commits of those transactions
			AddRow("rel", int64(0), int64(5), int64(2000), "other", 4, 900, 800, 1, 0, 0, 3).       // another table
			AddRow("rel", int64(0), int64(0), int64(0), "other", 4, 136, 0, 0, 0, 0, 0).            // the commits of its transactions
			AddRow("rel", int64(0), int64(9), int64(1001), "other", 2, 90, 0, 0, 0, 0, 0).          // same filenode, other database
			AddRow("rel", int64(0), int64(0), int64(0), "none", 3, 150, 0, 0, 0, 0, 0))             // running xacts
		m.ExpectQuery(strings.ReplaceAll(mocksql.SQL(t, pg.Name, "pg_walinspect_pages", v), "{{walinspect}}", `"public"`)).WithArgs("0/100", "0/200", int64(5), sqlmock.AnyArg()).
			WillReturnRows(sqlmock.NewRows([]string{"relfilenode", "pages"}).AddRow(int64(1001), 7).AddRow(int64(1003), 2).AddRow(int64(1002), 3))
		m.ExpectQuery(mocksql.SQL(t, pg.Name, "relation_of_filenode", v)).WithArgs(int64(2000)).WillReturnRows(sqlmock.NewRows([]string{"r"}).AddRow("public.other"))
		objs := []collectors.Object{
			{Level: collectors.Table, Schema: "kc", Name: "t", ID: "1001", Info: map[string]string{"toast_filenodes": "1003,1004"}},
			{Level: collectors.Index, Schema: "kc", Name: "i", Table: "t", ID: "1002", Info: map[string]string{"method": "btree"}},
			{Level: collectors.Index, Schema: "kc", Name: "idle", Table: "t", ID: "1005", Info: map[string]string{"method": "btree"}},
		}
		before := &collectors.Snapshot{Marks: map[string]string{MarkLSN: "0/100"}, Objects: objs}
		after := &collectors.Snapshot{Marks: map[string]string{MarkLSN: "0/200"}, Objects: objs}
		cs, err := PgWAL{}.CollectInterval(context.Background(), q, server(v), before, after)
		if err != nil {
			t.Fatal(err)
		}
		got := byKey(cs)
		want := map[string]float64{
			"table:kc.t:log_bytes":             10300, // heap + TOAST
			"index:kc.i:leaf_inserts":          105,
			"index:kc.i:pages_touched":         3,
			"table:kc.t:pages_touched":         9, // heap + TOAST
			"index:kc.i:fpi_count":             1,
			"index:kc.i:leaf_page_splits":      5,
			"index:kc.i:fpi_bytes":             2000,
			"index:kc.idle:leaf_inserts":       0, // "no WAL" is a finding, not a gap
			"database:log_bytes_in_scope":      10000 + 8000 + 300 + 1700,
			"database:log_bytes_other_objects": 900 + 136 + 90,
			"database:log_bytes_other":         150,
			"database:fpi_bytes":               2800,
		}
		if n := got["database:log_bytes_other_objects"].Note; !strings.Contains(n, "public.other 900 B") {
			t.Errorf("the out-of-scope relation must be named: %q", n)
		}
		for k, w := range want {
			c, ok := got[k]
			if !ok || c.Value != w {
				t.Errorf("%d: %s = %v (present %v), want %v", v, k, c.Value, ok, w)
			}
			if ok && (!c.Interval || c.Exactness != "exact") {
				t.Errorf("%s must be an exact interval figure", k)
			}
		}
	}
}

func TestWalinspectUnsupportedSaysWhy(t *testing.T) {
	t.Parallel()
	s := server(150000)
	s.Set(pg.CapWalinspect, false, "pg_walinspect is not installed ... (fix, as a superuser: CREATE EXTENSION pg_walinspect; GRANT pg_read_server_files TO app)")
	err := PgWAL{}.Supports(s)
	if !errors.Is(err, dialects.ErrUnsupported) || !strings.Contains(err.Error(), "GRANT pg_read_server_files") {
		t.Errorf("%v", err)
	}
}
