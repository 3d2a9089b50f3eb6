package mysql_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/writeamp/writeamp/collectors"
	cm "github.com/writeamp/writeamp/collectors/mysql"
	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/internal/testing/mysqltest"
	"github.com/writeamp/writeamp/result"
)

func tbm(d *collectors.Delta, obj, metric string) result.Metric {
	return d.Get(collectors.Key{Level: collectors.Table, Object: obj, Metric: metric})
}

// Pages touched per index equal what the test computes independently: an
// in-place UPDATE of every row rewrites every leaf page of the clustered
// index (InnoDB's persistent statistics count them, n_leaf_pages after
// ANALYZE TABLE) and no page of a secondary index whose key did not change.
// The shared server runs without performance_schema: its waits are missing
// with the exact lines that turn it on, and its change buffer state is said.
func TestPagesTouchedPerIndex(t *testing.T) {
	t.Parallel()
	db, s := mysqltest.Open(t)
	name := mysqltest.TempDatabase(t, db)
	tbl := name + ".t"
	mysqltest.Exec(t, db, "CREATE TABLE "+tbl+" (id int PRIMARY KEY, k int, v varchar(2000), KEY ik (k)) ENGINE=InnoDB CHARSET=latin1",
		"INSERT INTO "+tbl+" SELECT seq, seq, REPEAT('x', 2000) FROM seq_1_to_200", "ANALYZE TABLE "+tbl)
	var leaves float64
	if err := db.QueryRow("SELECT stat_value FROM mysql.innodb_index_stats WHERE database_name = ? AND table_name = 't' AND index_name = 'PRIMARY' AND stat_name = 'n_leaf_pages'", name).Scan(&leaves); err != nil {
		t.Fatal(err)
	}
	if leaves < 10 {
		t.Fatalf("the table should span many leaf pages, has %v", leaves)
	}
	sc := collectors.Scope{Schemas: []string{name}}
	d := window(t, db, s, sc, func() []collectors.Write {
		mysqltest.Exec(t, db, "UPDATE "+tbl+" SET v = REPEAT('y', 2000)")
		return nil
	})
	pk := idxm(d, name+".t.PRIMARY", "pages_touched")
	t.Logf("PRIMARY: %v pages touched (%s: %s), %v leaf pages", pk.V(), pk.Exactness, pk.Source, leaves)
	if pk.V() != leaves || pk.Exactness != result.Approx || !strings.Contains(pk.Source, "INNODB_BUFFER_PAGE") || !strings.Contains(pk.Note, "evicted") {
		t.Errorf("PRIMARY pages_touched = %+v, want %v (n_leaf_pages) labelled approx with the method", pk, leaves)
	}
	if k := idxm(d, name+".ik", "pages_touched"); !k.OK() || k.V() != 0 {
		t.Errorf("ik's key did not change, so none of its pages: %+v", k)
	}
	if tb := tbm(d, name+".t", "pages_touched"); tb.V() != leaves || !strings.Contains(tb.Source, "clustered index PRIMARY") {
		t.Errorf("table pages_touched = %+v, want the clustered index's %v", tb, leaves)
	}
	var ps bool
	if err := db.QueryRow("SELECT @@performance_schema").Scan(&ps); err != nil {
		t.Fatal(err)
	}
	if !ps {
		found := false
		for _, m := range d.Missing {
			if m.Collector == "events_waits_summary_global_by_event_name" {
				found = strings.Contains(m.Reason, "performance_schema = ON") && strings.Contains(m.Reason, "performance_schema_instrument = 'wait/synch/%/innodb/%=ON'")
			}
		}
		if !found {
			t.Errorf("performance_schema is off: the report must say how to turn it on: %+v", d.Missing)
		}
	}
	var mode string
	db.QueryRow("SELECT @@innodb_change_buffering").Scan(&mode)
	if merges := dbm(d, "ibuf_merges"); !merges.OK() || !strings.Contains(merges.Note, "innodb_change_buffering = "+mode) {
		t.Errorf("ibuf_merges must be measured and name the server's change buffering (%s): %+v", mode, merges)
	}
	if mode == "none" && !strings.Contains(strings.Join(d.WarningTexts(), "\n"), "innodb_change_buffering = none") {
		t.Errorf("the change buffer is off here and the report must say so: %v", d.Warnings)
	}
}

// A private MariaDB with performance_schema, its InnoDB wait instruments and
// the change buffer on, and a buffer pool small enough that secondary-index
// pages go cold: the window reports InnoDB latch acquisitions (the index
// latch), change buffer merges, and the sampler tells the workload's
// sessions (program_name writeamp) from another client's.
func TestPerformanceSchemaWaitsAndChangeBuffer(t *testing.T) {
	t.Parallel()
	dsn := mysqltest.Private(t, "--performance-schema=ON", "--performance-schema-instrument=wait/synch/%/innodb/%=ON",
		"--performance-schema-instrument=wait/io/file/innodb/%=ON", "--performance-schema-instrument=wait/lock/%=ON",
		"--performance-schema-consumer-global-instrumentation=ON", "--innodb-change-buffering=all", "--innodb-buffer-pool-size=8M")
	db, s := mysqltest.OpenDSN(t, dsn)
	var ps bool
	if err := db.QueryRow("SELECT @@performance_schema").Scan(&ps); err != nil || !ps {
		t.Fatalf("the private server runs with performance_schema: %v %v", ps, err)
	}
	mysqltest.Exec(t, db, "CREATE DATABASE w", "CREATE TABLE w.cb (id int PRIMARY KEY, k int, v varchar(500), KEY ik (k)) ENGINE=InnoDB",
		"INSERT INTO w.cb SELECT seq, FLOOR(RAND() * 1000000), REPEAT('x', 500) FROM seq_1_to_30000",
		"SELECT COUNT(*) FROM w.cb WHERE v LIKE 'y%'") // a scan of the rows pushes the index pages out
	sc := collectors.Scope{Schemas: []string{"w"}}
	d := window(t, db, s, sc, func() []collectors.Write {
		mysqltest.Exec(t, db, "INSERT INTO w.cb SELECT seq + 100000, FLOOR(RAND() * 1000000), REPEAT('x', 500) FROM seq_1_to_2000",
			"SELECT COUNT(*) FROM w.cb FORCE INDEX (ik) WHERE k >= 0") // reading the index merges what was buffered
		return nil
	})
	latch := dbm(d, "waits.wait/synch/sxlock/innodb/index_tree_rw_lock")
	t.Logf("index latch: %v acquisitions, %v ms (%s)", latch.V(), dbm(d, "waits.wait/synch/sxlock/innodb/index_tree_rw_lock_ms").V(), latch.Source)
	if !latch.OK() || latch.V() <= 0 || latch.Exactness != result.Exact || !strings.Contains(latch.Source, "events_waits_summary_global_by_event_name") {
		t.Errorf("the index latch: %+v", latch)
	}
	if ms := dbm(d, "waits.wait/synch/sxlock/innodb/index_tree_rw_lock_ms"); !ms.OK() {
		t.Errorf("a timed instrument has its time: %+v", ms)
	}
	merged := dbm(d, "ibuf_merged_inserts")
	t.Logf("change buffer: %v inserts merged in %v merges (%s; %s)", merged.V(), dbm(d, "ibuf_merges").V(), merged.Source, merged.Note)
	if !merged.OK() || merged.V() <= 0 || !strings.Contains(merged.Note, "innodb_change_buffering = all") {
		t.Errorf("inserts into cold secondary-index pages are buffered and merged: %+v", merged)
	}
	for _, w := range d.WarningTexts() {
		if strings.Contains(w, "change buffer") {
			t.Errorf("the change buffer is on here, no warning: %s", w)
		}
	}

	// Two sessions wait for the same row lock: one of writeamp's, one of
	// another program. Only writeamp's is sampled.
	mysqltest.Exec(t, db, "CREATE TABLE w.l (id int PRIMARY KEY, v int) ENGINE=InnoDB", "INSERT INTO w.l VALUES (1, 0)")
	ctx := context.Background()
	holder, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback()
	if _, err := holder.Exec("UPDATE w.l SET v = 1 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	cfg, _ := my.Config(dsn)
	cfg.ConnectionAttributes = "program_name:someone-else"
	other, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	sampling, err := cm.Processlist{}.Start(ctx, db, s, collectors.SampleTarget{ApplicationName: my.ProgramName})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 2)
	for _, c := range []*sql.DB{db, other} {
		go func(c *sql.DB) { _, err := c.Exec("UPDATE w.l SET v = v + 1 WHERE id = 1"); done <- err }(c)
	}
	time.Sleep(500 * time.Millisecond)
	holder.Commit()
	for i := 0; i < 2; i++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	cs, err := sampling.Stop()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]collectors.Counter{}
	for _, c := range cs {
		got[c.Metric] = c
	}
	t.Logf("active sessions %.2f, row lock share %.2f (%s; %q)", got["active_sessions"].Value, got["wait_share.Lock.row_lock"].Value, got["wait_samples"].Source, got["wait_samples"].Note)
	if a := got["active_sessions"].Value; a < 0.8 || a > 1.2 {
		t.Errorf("only writeamp's waiting session is sampled (another program's is not): %.2f active sessions", a)
	}
	if got["wait_share.Lock.row_lock"].Value < 0.5 || strings.Contains(got["wait_samples"].Note, "cannot be told") {
		t.Errorf("the row lock wait, with the sessions told apart: %+v", got)
	}
}
