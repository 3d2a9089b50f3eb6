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
)

// The sampler sees a known wait: one session holds a row lock, the sampled
// session's UPDATE of the same row waits for it (InnoDB LOCK WAIT on a
// RECORD lock) until the holder commits. Works with performance_schema off,
// as the shared test server runs.
func TestProcesslistSamplerSeesARowLockWait(t *testing.T) {
	t.Parallel()
	db, s := mysqltest.Open(t)
	ctx := context.Background()
	dbName := mysqltest.TempDatabase(t, db)
	tbl := dbName + ".lockwait"
	mysqltest.Exec(t, db, "CREATE TABLE "+tbl+" (id int PRIMARY KEY, v int) ENGINE=InnoDB", "INSERT INTO "+tbl+" VALUES (1, 0)")
	holder, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback()
	if _, err := holder.Exec("UPDATE " + tbl + " SET v = 1 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	sampling, err := cm.Processlist{}.Start(ctx, db, s, collectors.SampleTarget{ApplicationName: "writeamp", Operation: func(q string) string {
		if strings.Contains(q, "lockwait") {
			return "refresh"
		}
		return "other"
	}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := db.Exec("UPDATE " + tbl + " SET v = 2 WHERE id = 1")
		done <- err
	}()
	time.Sleep(600 * time.Millisecond)
	if err := holder.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	cs, err := sampling.Stop()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]collectors.Counter{}
	for _, c := range cs {
		got[c.Metric] = c
		t.Logf("%s = %.3f (%s; %s)", c.Metric, c.Value, c.Source, c.Note)
	}
	// A reading every 10 ms at most, and at most 1/Budget of the time (a
	// 2 ms reading: every 120 ms).
	if n := got["wait_samples"].Value; n < 3 || n > 61 {
		t.Errorf("%v samples in 600 ms, want 3 to 61", n)
	}
	lock := got["wait_share.Lock.row_lock"]
	if lock.Value < 0.5 || lock.Exactness != "approx" || !strings.Contains(lock.Source, "samples") || !lock.Interval {
		t.Errorf("the blocked UPDATE's wait: %+v", lock)
	}
	if got["op_wait_share.refresh.Lock.row_lock"].Value < 0.5 {
		t.Errorf("per operation: %v", cs)
	}
	var ps bool
	db.QueryRow("SELECT @@performance_schema").Scan(&ps)
	if !ps && !strings.Contains(lock.Note, "cannot be told from other clients") {
		t.Errorf("with performance_schema off the figures must say every session was sampled: %q", lock.Note)
	}
}

// A runner that names its workers' sessions (by CONNECTION_ID, as the
// dialect's SessionID reads it) gets only those sampled, with the operation
// each runs: two sessions wait for the same row lock, one is the workload's.
func TestProcesslistSamplerCountsTheRunnersSessions(t *testing.T) {
	t.Parallel()
	db, s := mysqltest.Open(t)
	ctx := context.Background()
	dbName := mysqltest.TempDatabase(t, db)
	tbl := dbName + ".lockwait"
	mysqltest.Exec(t, db, "CREATE TABLE "+tbl+" (id int PRIMARY KEY, v int) ENGINE=InnoDB", "INSERT INTO "+tbl+" VALUES (1, 0)")
	holder, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback()
	if _, err := holder.Exec("UPDATE " + tbl + " SET v = 1 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	var conns [2]*sql.Conn
	for i := range conns {
		if conns[i], err = db.Conn(ctx); err != nil {
			t.Fatal(err)
		}
		defer conns[i].Close()
	}
	ours, err := my.Dialect{}.SessionID(ctx, conns[0])
	if err != nil || ours == "" {
		t.Fatalf("session id: %q %v", ours, err)
	}
	sampling, err := cm.Processlist{}.Start(ctx, db, s, collectors.SampleTarget{Sessions: func(id string) (string, bool) { return "refresh", id == ours }})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 2)
	for _, c := range conns {
		go func(c *sql.Conn) {
			_, err := c.ExecContext(ctx, "UPDATE "+tbl+" SET v = v + 1 WHERE id = 1")
			done <- err
		}(c)
	}
	time.Sleep(500 * time.Millisecond)
	holder.Commit()
	for range conns {
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
	if a := got["active_sessions"].Value; a < 0.8 || a > 1.2 {
		t.Errorf("only the runner's session is sampled: %.2f active sessions", a)
	}
	if got["op_wait_share.refresh.Lock.row_lock"].Value < 0.5 || strings.Contains(got["wait_share.Lock.row_lock"].Note, "cannot be told") {
		t.Errorf("the runner's session waits for the row lock, named by the runner: %+v", got)
	}
}
