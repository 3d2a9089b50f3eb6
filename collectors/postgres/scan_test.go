package postgres

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// The rows below are typed as pgx returns these queries' columns: the
// checkpoint count is bigint (int64), stats_reset is cast to text, the LSN
// and its byte position are text (pg_lsn::text, numeric::text), the
// transaction counters bigint.

func pgServer(v int) dialects.Server {
	s := dialects.Server{Dialect: pg.Name, VersionNum: v, Version: "test"}
	s.Set(pg.CapPrimary, true, "")
	return s
}

// Each major reads its checkpoint count where it lives and says how exact
// it is, as the block's headers say (15: pg_stat_bgwriter, approx; 17:
// pg_stat_checkpointer timed + requested, approx; 18: num_done, exact).
func TestPgStatCheckpointerScanByVersion(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		v      int
		source string
		e      result.Exactness
	}{
		{150020, "pg_stat_bgwriter.checkpoints_timed + checkpoints_req", result.Approx},
		{170006, "pg_stat_checkpointer.num_timed + num_requested", result.Approx},
		{180001, "pg_stat_checkpointer.num_done", result.Exact},
	} {
		db, m := mocksql.New(t)
		text, err := queries.Get(pg.Name, "pg_stat_checkpointer", tc.v)
		if err != nil {
			t.Fatal(err)
		}
		m.ExpectQuery(text).WillReturnRows(sqlmock.NewRows([]string{"n", "coalesce"}).AddRow(int64(7), "2026-11-30 10:00:00.123+00"))
		cs, err := PgStatCheckpointer{}.Collect(context.Background(), db, pgServer(tc.v), collectors.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		if len(cs) != 1 || cs[0].Metric != result.Checkpoints.Name || cs[0].Value != 7 || cs[0].Source != tc.source ||
			cs[0].Exactness != tc.e || cs[0].Reset != "2026-11-30 10:00:00.123+00" {
			t.Errorf("%d: %+v", tc.v, cs)
		}
		if (tc.e == result.Approx) != (cs[0].Note != "") {
			t.Errorf("%d: an approx count says why (note %q)", tc.v, cs[0].Note)
		}
	}
}

func TestPgStatDatabaseScan(t *testing.T) {
	t.Parallel()
	db, m := mocksql.New(t)
	text, _ := queries.Get(pg.Name, "pg_stat_database", 150020)
	m.ExpectQuery(text).WillReturnRows(sqlmock.NewRows([]string{"xact_commit", "xact_rollback", "deadlocks", "temp_bytes", "coalesce"}).AddRow(int64(1502), int64(3), int64(0), int64(8192), ""))
	cs, err := PgStatDatabase{}.Collect(context.Background(), db, pgServer(150020), collectors.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, c := range cs {
		got[c.Metric] = c.Value
		if c.Reset != "never" { // 15+ with no reset: never reset
			t.Errorf("%s reset %q", c.Metric, c.Reset)
		}
	}
	if got[result.TransactionsCommitted.Name] != 1502 || got[result.TransactionsRolledBack.Name] != 3 || got[result.Deadlocks.Name] != 0 || got[result.TempBytes.Name] != 8192 || len(cs) != 4 {
		t.Errorf("%+v", cs)
	}
}

func TestWalLSNScan(t *testing.T) {
	t.Parallel()
	db, m := mocksql.New(t)
	text, _ := queries.Get(pg.Name, "wal_lsn", 150020)
	m.ExpectQuery(text).WillReturnRows(sqlmock.NewRows([]string{"pg_current_wal_insert_lsn", "pg_wal_lsn_diff"}).AddRow("0/1A2B3C4", "27439044"))
	marks, err := WalLSN{}.Marks(context.Background(), db, pgServer(150020))
	if err != nil || marks[MarkLSN] != "0/1A2B3C4" {
		t.Errorf("marks %v, %v", marks, err)
	}
}

// pg_class's columns as the query types them (names, relkind and access
// method text; oids, relfilenodes and the index's table bigint; the
// predicate and uniqueness booleans), and relation_sizes' (oid and size
// bigint, the definition text, ” for a table): the catalog links an index
// to its table by oid, lists a table's TOAST table (part of the table) and
// TOAST index (an index of the table), holds the partitions of a table in
// scope whatever their names, each part of its partitioned table or index,
// drops what is out of scope, and sizes only what is still there.
func TestPgClassScan(t *testing.T) {
	t.Parallel()
	q, m := mocksql.WithConverter(t, arrays{})
	cols := []string{"nspname", "relname", "relkind", "coalesce", "relfilenode", "oid", "amname", "partial", "indisunique",
		"toast", "toast_node", "toast_index", "toast_index_node", "parent"}
	z := int64(0)
	m.ExpectQuery(mocksql.SQL(t, pg.Name, "pg_class", 150020)).WithArgs([]string{"kc"}).WillReturnRows(sqlmock.NewRows(cols).
		AddRow("kc", "offline_user_session", "r", z, int64(16399), int64(16400), "heap", false, false, int64(16402), int64(16403), int64(16410), int64(16404), z).
		AddRow("kc", "offline_user_session_pkey", "i", int64(16400), int64(16405), int64(16405), "btree", false, true, z, z, z, z, z).
		AddRow("kc", "idx_broker", "i", int64(16400), int64(16406), int64(16406), "btree", true, false, z, z, z, z, z).
		AddRow("kc", "events", "p", z, z, int64(16600), "", false, false, z, z, z, z, z).
		AddRow("kc", "events_pkey", "I", int64(16600), z, int64(16601), "btree", false, true, z, z, z, z, z).
		AddRow("kc", "ev_p0", "r", z, int64(16610), int64(16610), "heap", false, false, z, z, z, z, int64(16600)).
		AddRow("kc", "ev_p0_pkey", "i", int64(16610), int64(16611), int64(16611), "btree", false, true, z, z, z, z, int64(16601)).
		AddRow("kc", "other", "r", z, int64(16700), int64(16700), "heap", false, false, z, z, z, z, z).
		AddRow("kc", "other_pkey", "i", int64(16700), int64(16701), int64(16701), "btree", false, true, z, z, z, z, z))
	m.ExpectQuery(mocksql.SQL(t, pg.Name, "relation_sizes", 150020)).WithArgs([]int64{16400, 16402, 16410, 16405, 16406, 16600, 16601, 16610, 16611}).WillReturnRows(
		sqlmock.NewRows([]string{"r", "pg_relation_size", "coalesce"}).
			AddRow(int64(16400), int64(81920), "").
			AddRow(int64(16402), int64(40960), "").
			AddRow(int64(16405), int64(16384), "CREATE UNIQUE INDEX offline_user_session_pkey ON kc.offline_user_session USING btree (user_session_id)").
			AddRow(int64(16600), int64(0), ""))
	sc := collectors.Scope{Schemas: []string{"kc"}, Tables: []string{"offline_user_session", "events"}}
	objs, cs, err := PgClass{}.Catalog(context.Background(), q, server(150020), sc)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]collectors.Object{}
	for _, o := range objs {
		byName[o.Name] = o
	}
	if len(objs) != 9 || byName["other"].Name != "" || byName["other_pkey"].Name != "" {
		t.Fatalf("out-of-scope objects listed, or scoped ones lost: %+v", objs)
	}
	if o := byName["offline_user_session"]; o.Level != collectors.Table || o.ID != "16399" || o.Info["oid"] != "16400" || o.Info["part_of"] != "" {
		t.Errorf("table %+v", o)
	}
	if o := byName["offline_user_session (TOAST)"]; o.Level != collectors.Table || o.ID != "16403" || o.Info["oid"] != "16402" ||
		o.Info["part_of"] != "kc.offline_user_session" || o.Info["toast"] != "table" {
		t.Errorf("TOAST table %+v", o)
	}
	if o := byName["offline_user_session (TOAST index)"]; o.Level != collectors.Index || o.ID != "16404" || o.Table != "offline_user_session" ||
		o.Info["method"] != "btree" || o.Info["toast"] != "index" || o.Info["part_of"] != "" {
		t.Errorf("TOAST index %+v", o)
	}
	if o := byName["events"]; o.Level != collectors.Table || o.Info["partitioned"] != "true" {
		t.Errorf("partitioned table %+v", o)
	}
	if o := byName["ev_p0"]; o.Level != collectors.Table || o.Info["part_of"] != "kc.events" || o.Info["partitioned"] != "" {
		t.Errorf("partition %+v", o)
	}
	if o := byName["ev_p0_pkey"]; o.Level != collectors.Index || o.Table != "ev_p0" || o.Info["part_of"] != "kc.events_pkey" {
		t.Errorf("partition index %+v", o)
	}
	if o := byName["events_pkey"]; o.Level != collectors.Index || o.Table != "events" || o.Info["partitioned"] != "true" {
		t.Errorf("partitioned index %+v", o)
	}
	if o := byName["offline_user_session_pkey"]; o.Level != collectors.Index || o.Table != "offline_user_session" || o.Info["unique"] != "true" ||
		o.Info["method"] != "btree" || !strings.HasPrefix(o.Info["definition"], "CREATE UNIQUE INDEX") {
		t.Errorf("index %+v", o)
	}
	if o := byName["idx_broker"]; o.Info["partial"] != "true" || o.Info["unique"] != "" || o.Info["definition"] != "" {
		t.Errorf("partial index %+v", o)
	}
	got := byKey(cs)
	if c := got["table:kc.offline_user_session:size_bytes"]; c.Value != 81920 || !c.Gauge || c.Exactness != result.Exact || c.Identity != "16399" {
		t.Errorf("table size %+v", c)
	}
	if c := got["table:kc.offline_user_session (TOAST):size_bytes"]; c.Value != 40960 {
		t.Errorf("TOAST table size %+v", c)
	}
	if _, ok := got["index:kc.idx_broker:size_bytes"]; ok || len(got) != 4 {
		t.Errorf("a relation dropped since the catalog was read got a size: %v", got)
	}
}

// pg_stat_io's sums are bigint and stats_reset text (” when never reset):
// five cluster-wide approx counters that carry the reset.
func TestPgStatIOScan(t *testing.T) {
	t.Parallel()
	db, m := mocksql.New(t)
	s := pgServer(160004)
	s.Set(pg.CapStatIO, true, "")
	m.ExpectQuery(mocksql.SQL(t, pg.Name, "pg_stat_io", 160004)).WillReturnRows(sqlmock.NewRows([]string{"coalesce", "coalesce", "coalesce", "coalesce", "coalesce", "coalesce"}).
		AddRow(int64(120), int64(7), int64(40), int64(90000), int64(310), ""))
	cs, err := PgStatIO{}.Collect(context.Background(), db, s, collectors.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"buffer_writes": 120, "buffer_writes_backend": 7, "buffer_extends": 40, "buffer_hits": 90000, "buffer_reads": 310}
	if len(cs) != len(want) {
		t.Fatalf("%d counters: %+v", len(cs), cs)
	}
	for _, c := range cs {
		if c.Level != collectors.DB || c.Value != want[c.Metric] || c.Exactness != result.Approx || c.Reset != "never" || !strings.Contains(c.Source, "whole cluster") {
			t.Errorf("%+v", c)
		}
	}
	if err := (PgStatIO{}).Supports(pgServer(150020)); !errors.Is(err, dialects.ErrUnsupported) {
		t.Errorf("15 has no pg_stat_io: %v", err)
	}
}
