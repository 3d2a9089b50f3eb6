package measure_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/collectors"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/internal/testing/testenv"
	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/reports"
	"github.com/writeamp/writeamp/result"
)

// partsDB is a fresh database of the shared server with pg_walinspect, the
// truth the figures are checked against, dropped when the test ends.
func partsDB(t *testing.T, name string) (string, func(q string, dest ...any)) {
	t.Helper()
	admin, _ := openPG(t, testenv.DSN(t, pgEnv))
	name = fmt.Sprintf("%s_%d", name, os.Getpid())
	mustExec(t, admin, `DROP DATABASE IF EXISTS `+name)
	mustExec(t, admin, `CREATE DATABASE `+name)
	t.Cleanup(func() { admin.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`) })
	dsn := pg.WithDatabase(testenv.DSN(t, pgEnv), name)
	db, _ := openPG(t, dsn)
	mustExec(t, db, `CREATE EXTENSION pg_walinspect`)
	return dsn, func(q string, dest ...any) {
		t.Helper()
		if len(dest) == 0 {
			mustExec(t, db, q)
			return
		}
		if err := db.QueryRow(q).Scan(dest...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// measureCmd runs measure around psql's statements on the database, scoped
// to the schema, and returns the run and the whole result.
func measureCmd(t *testing.T, dsn, schema string, sqls ...string) (*result.Run, *result.Result) {
	t.Helper()
	db, s := openPG(t, dsn)
	res, code, err := (&measure.Wrapped{Window: window(t, db, s), Scope: collectors.Scope{Schemas: []string{schema}},
		Command: psqlCmd(t, dsn, sqls...), Stdout: io.Discard}).Run(context.Background())
	if err != nil || code != 0 {
		t.Fatalf("measure: exit %d, %v", code, err)
	}
	res = reports.FindingsOf(res)
	return &res.Runs[0], res
}

// leafTruth counts, with pg_walinspect between the window's marks, the
// leaf inserts of a relfilenode: records whose first block is it, Btree
// INSERT_LEAF and INSERT_POST and level-0 splits (15 writes "level 0,",
// 16+ "level: 0,").
const leafTruth = `SELECT count(*) FROM pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn)
WHERE resource_manager = 'Btree' AND block_ref ~ ('^blkref #0: rel \d+/\d+/' || $3 || ' ')
  AND (record_type IN ('INSERT_LEAF', 'INSERT_POST') OR (record_type IN ('SPLIT_L', 'SPLIT_R') AND description ~ '^level:? 0,'))`

// Updating a TOASTed column writes the table's TOAST table and one entry per
// chunk into its TOAST index: both are listed, the TOAST index's leaf
// inserts equal pg_walinspect's count between the window's marks, the
// table's figures include its TOAST table's, and no figure says the
// updates added 0 index entries.
func TestMeasureCountsTOAST(t *testing.T) {
	t.Parallel()
	dsn, q := partsDB(t, "wa_toast")
	q(`CREATE SCHEMA tx`)
	q(`CREATE TABLE tx.t (id int PRIMARY KEY, big text, n int) WITH (fillfactor = 50, autovacuum_enabled = off)`)
	q(`ALTER TABLE tx.t ALTER COLUMN big SET STORAGE EXTERNAL`)
	q(`INSERT INTO tx.t SELECT g, (SELECT string_agg(md5(g::text || x::text), '') FROM generate_series(1, 192) x), 0 FROM generate_series(1, 1000) g`)
	q(`VACUUM ANALYZE tx.t`)
	var upd []string
	for i := 1; i <= 300; i++ {
		upd = append(upd, fmt.Sprintf(`UPDATE tx.t SET big = big || 'x' WHERE id = %d`, i))
	}
	run, res := measureCmd(t, dsn, "tx", upd...)
	a, b := run.Window.Marks["wal_insert_lsn_before"], run.Window.Marks["wal_insert_lsn_after"]
	var toastIdx, toastRel string
	q(`SELECT pg_relation_filenode(i.indexrelid)::text, pg_relation_filenode(c.reltoastrelid)::text
	   FROM pg_class c JOIN pg_index i ON i.indrelid = c.reltoastrelid WHERE c.oid = 'tx.t'::regclass`, &toastIdx, &toastRel)
	var truth, toastBytes, toastRecs float64
	q(strings.NewReplacer("$1", "'"+a+"'", "$2", "'"+b+"'", "$3", "'"+toastIdx+"'").Replace(leafTruth), &truth)
	q(fmt.Sprintf(`SELECT coalesce(sum(record_length), 0), count(*) FROM pg_get_wal_records_info('%s', '%s') WHERE block_ref ~ '^blkref #0: rel \d+/\d+/%s '`, a, b, toastRel), &toastBytes, &toastRecs)
	if truth < 300 {
		t.Fatalf("setup: the TOAST index got %v leaf inserts for 300 updates: the value was not toasted", truth)
	}
	ix := run.Index("t (TOAST index)")
	if ix == nil || ix.Table != "t" {
		t.Fatalf("no TOAST index of t listed: %+v", run.Indexes)
	}
	li := metric(t, ix, result.LeafInserts.Name)
	t.Logf("TOAST index leaf inserts: writeamp %v (%s), pg_walinspect %v; TOAST table %v B in %v records", li.V(), li.Exactness, truth, toastBytes, toastRecs)
	if li.Exactness != result.Exact || li.V() != truth {
		t.Errorf("TOAST index leaf_inserts %v (%s), pg_walinspect counts %v", li.V(), li.Exactness, truth)
	}
	tt := run.Table("t (TOAST)")
	if tt == nil || tt.PartOf() != "tx.t" {
		t.Fatalf("no TOAST table of t listed: %+v", run.Tables)
	}
	if lb, lr := metric(t, tt, result.LogBytes.Name), metric(t, tt, result.LogRecords.Name); lb.V() != toastBytes || lr.V() != toastRecs || lb.Exactness != result.Exact {
		t.Errorf("TOAST table log %v B / %v records (%s), pg_walinspect %v B / %v records", lb.V(), lr.V(), lb.Exactness, toastBytes, toastRecs)
	}
	if own := metric(t, run.Table("t"), result.LogBytes.Name); own.V() <= toastBytes {
		t.Errorf("t's log bytes %v do not include its TOAST table's %v", own.V(), toastBytes)
	}
	ie, ok := indexEntriesOf(run, "t")
	if !ok || ie != truth {
		t.Errorf("t's index entries %v, want its TOAST index's %v", ie, truth)
	}
	for _, f := range res.Findings {
		if f.Metric == result.LeafInserts.Name && (f.Value == nil || *f.Value == 0) {
			t.Errorf("finding %q says no index entries", f.Text)
		}
	}
}

// indexEntriesOf is a table's index entries as budgets sum them.
func indexEntriesOf(run *result.Run, table string) (float64, bool) {
	var n float64
	ixs := run.TableIndexes(table)
	for _, ix := range ixs {
		m := ix.Metrics[result.LeafInserts.Name]
		if !m.OK() {
			return 0, false
		}
		n += m.V()
	}
	return n, len(ixs) > 0
}

// A hash-partitioned table is written through its partitions: they are
// listed with their rows and leaf inserts (checked against
// pg_stat_user_tables and pg_walinspect), and the partitioned table's and
// index's figures are their sums, labelled no stronger than the parts; the
// rows changed count each row once.
func TestMeasureFoldsPartitions(t *testing.T) {
	t.Parallel()
	dsn, q := partsDB(t, "wa_parts")
	q(`CREATE SCHEMA px`)
	q(`CREATE TABLE px.ev (id int PRIMARY KEY, k int, v int) PARTITION BY HASH (id)`)
	q(`CREATE TABLE px.ev_0 PARTITION OF px.ev FOR VALUES WITH (MODULUS 2, REMAINDER 0) WITH (autovacuum_enabled = off)`)
	q(`CREATE TABLE px.ev_1 PARTITION OF px.ev FOR VALUES WITH (MODULUS 2, REMAINDER 1) WITH (autovacuum_enabled = off)`)
	q(`CREATE INDEX ev_k ON px.ev (k)`)
	q(`INSERT INTO px.ev SELECT g, g, 0 FROM generate_series(1, 2000) g`)
	q(`VACUUM ANALYZE px.ev`)
	var upd []string
	for i := 1; i <= 200; i++ {
		upd = append(upd, fmt.Sprintf(`UPDATE px.ev SET k = k + 1 WHERE id = %d`, i))
	}
	// --table ev names the partitioned table: its partitions are in scope.
	db, s := openPG(t, dsn)
	sc, err := collectors.Resolve(context.Background(), db, s, collectors.Scope{Tables: []string{"ev"}})
	if err != nil {
		t.Fatal(err)
	}
	res, code, err := (&measure.Wrapped{Window: window(t, db, s), Scope: sc, Command: psqlCmd(t, dsn, upd...), Stdout: io.Discard}).Run(context.Background())
	if err != nil || code != 0 {
		t.Fatalf("measure: exit %d, %v", code, err)
	}
	res = reports.FindingsOf(res)
	run := &res.Runs[0]
	a, b := run.Window.Marks["wal_insert_lsn_before"], run.Window.Marks["wal_insert_lsn_after"]
	var rowsSum, leafSum float64
	ex := result.Exact
	for _, p := range []string{"ev_0", "ev_1"} {
		tb := run.Table(p)
		if tb == nil || tb.PartOf() != "px.ev" {
			t.Fatalf("partition %s not listed as part of px.ev: %+v", p, run.Tables)
		}
		var truth float64
		q(`SELECT n_tup_upd FROM pg_stat_user_tables WHERE relid = 'px.`+p+`'::regclass`, &truth)
		ru := metric(t, tb, result.RowsUpdated.Name)
		if ru.V() != truth {
			t.Errorf("%s rows_updated %v, pg_stat_user_tables %v", p, ru.V(), truth)
		}
		rowsSum += ru.V()
		ex = result.Weaker(ex, ru.Exactness)
		for _, ix := range run.TableIndexes(p) {
			var node string
			q(`SELECT pg_relation_filenode('px.`+ix.Name+`')::text`, &node)
			var lt float64
			q(strings.NewReplacer("$1", "'"+a+"'", "$2", "'"+b+"'", "$3", "'"+node+"'").Replace(leafTruth), &lt)
			li := metric(t, &ix, result.LeafInserts.Name)
			t.Logf("%s leaf inserts: writeamp %v (%s), pg_walinspect %v", ix.Name, li.V(), li.Exactness, lt)
			if li.Exactness == result.Exact && li.V() != lt {
				t.Errorf("%s leaf_inserts %v exact, pg_walinspect %v", ix.Name, li.V(), lt)
			}
			leafSum += li.V()
		}
	}
	if rowsSum != 200 || leafSum != 400 {
		t.Errorf("partitions: %v rows updated, %v leaf inserts; want 200 and 400 (two indexes)", rowsSum, leafSum)
	}
	parent := run.Table("ev")
	if parent == nil {
		t.Fatalf("the partitioned table is not listed: %+v", run.Tables)
	}
	if ru := metric(t, parent, result.RowsUpdated.Name); ru.V() != rowsSum || result.Weaker(ru.Exactness, ex) != ru.Exactness {
		t.Errorf("ev rows_updated %v (%s), its partitions' sum %v (%s)", ru.V(), ru.Exactness, rowsSum, ex)
	}
	if ie, ok := indexEntriesOf(run, "ev"); !ok || ie != leafSum {
		t.Errorf("ev's index entries %v, its partitions' %v", ie, leafSum)
	}
	for _, name := range []string{"ev_k", "ev_pkey"} {
		if li := metric(t, run.Index(name), result.LeafInserts.Name); li.V() != 200 {
			t.Errorf("partitioned index %s leaf_inserts %v (%s), want 200", name, li.V(), li.Exactness)
		}
	}
	if rc, ok := run.TableRowsChanged(); !ok || rc != 200 {
		t.Errorf("rows changed %v: each row once", rc)
	}
	for _, f := range res.Findings {
		// per row changed (no operation count): 400 entries / 200 rows
		if f.Metric == result.LeafInserts.Name && (f.Value == nil || *f.Value != 2) {
			t.Errorf("finding %q: want 2 index entries per row changed (400 / 200)", f.Text)
		}
	}
}
