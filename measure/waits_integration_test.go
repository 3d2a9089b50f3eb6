package measure_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/writeamp/writeamp/collectors"
	pgcollect "github.com/writeamp/writeamp/collectors/postgres"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/internal/testing/mysqltest"
	"github.com/writeamp/writeamp/internal/testing/testenv"
	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/result"
	"github.com/writeamp/writeamp/workloads"
)

// bumpWorkload updates one row again and again: the smallest built-in
// workload, so a test can hold that row's lock and know what the workload's
// session must be seen waiting on.
type bumpWorkload struct {
	schema, table string
	n             int
	started       chan struct{} // closed as the first operation is handed out
}

func (b *bumpWorkload) Meta() workloads.Meta {
	return workloads.Meta{Name: "bump", Variants: []string{"one"}, MainOperation: "bumps"}
}
func (b *bumpWorkload) Prepare(context.Context, dialects.Target, string) error { return nil }
func (b *bumpWorkload) Scope() collectors.Scope {
	return collectors.Scope{Schemas: []string{b.schema}}
}
func (b *bumpWorkload) TotalOperations() int64                         { return int64(b.n) }
func (b *bumpWorkload) Cleanup(context.Context, dialects.Target) error { return nil }
func (b *bumpWorkload) Ops() (workloads.Ops, error) {
	return func(worker, workers int) workloads.Next {
		left := b.n
		return func() (workloads.Op, bool) {
			if left == 0 {
				return workloads.Op{}, false
			}
			if left == b.n {
				close(b.started)
			}
			left--
			return workloads.Op{Name: "bump", Counts: "bumps", Steps: []workloads.Step{{Name: "bump",
				Stmt: dialects.Stmt{SQL: "UPDATE " + b.table + " SET v = v + 1 WHERE id = 1"}, Want: 1}}}, true
		}
	}, nil
}

// lockWaitThroughTheWindow holds row 1 of table from a session of its own
// while a run of the bump workload, in a window with the wait samplers,
// updates it: the workload's session must be seen waiting on wait (the
// dialect's name for a row lock) for most of its active time, overall and
// within its operation, and the figure says it is sampled. It returns the run.
func lockWaitThroughTheWindow(t *testing.T, db *sql.DB, s dialects.Server, schema, table, wait string) *result.Run {
	t.Helper()
	ctx := context.Background()
	holder, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback()
	if _, err := holder.Exec("UPDATE " + table + " SET v = v + 1 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	// Released 800 ms after the workload starts: settling the server for
	// the window takes a while of its own (PostgreSQL 13/14 wait for
	// earlier statistics to arrive).
	bump := &bumpWorkload{schema: schema, table: table, n: 20, started: make(chan struct{})}
	released := make(chan error, 1)
	go func() {
		<-bump.started
		time.Sleep(800 * time.Millisecond)
		released <- holder.Commit()
	}()
	w := window(t, db, s)
	w.Observers = append(w.Observers, &measure.Waits{})
	res, err := (&measure.Experiment{Window: w, Workload: bump, Variants: []string{"one"}}).Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-released; err != nil {
		t.Fatal(err)
	}
	run := res.Runs[0]
	if run.Operations["bumps"] != 20 {
		t.Fatalf("bumps: %v", run.Operations)
	}
	share := run.Database["wait_share."+wait]
	if share.V() < 0.5 || share.Exactness != result.Approx || !strings.Contains(share.Source, "samples") {
		t.Errorf("the blocked update's wait %s: %+v (database: %v)", wait, share, shares(run.Database))
	}
	if op := run.Database["op_wait_share.bump."+wait]; op.V() < 0.5 {
		t.Errorf("per operation: %+v (database: %v)", op, shares(run.Database))
	}
	// At most 1/collectors.Budget of the time: a 1-4 ms reading every 120-480 ms,
	// longer on a loaded machine (a reading's time is wall time).
	if n := run.Database["wait_samples"]; n.V() < 2 {
		t.Errorf("wait_samples %v over at least 800 ms (%s)", n.V(), n.Source)
	}
	return &run
}

func shares(m map[string]result.Metric) map[string]float64 {
	out := map[string]float64{}
	for k, v := range m {
		if strings.Contains(k, "wait") || k == "active_sessions" {
			out[k] = v.V()
		}
	}
	return out
}

func TestWindowSeesARowLockWaitPostgres(t *testing.T) {
	t.Parallel()
	db, s := openPG(t, testenv.DSN(t, pgEnv))
	pgLockWait(t, db, s)
}

// pgLockWait runs lockWaitThroughTheWindow on a table of its own schema.
func pgLockWait(t *testing.T, db *sql.DB, s dialects.Server) {
	for _, q := range []string{`DROP SCHEMA IF EXISTS writeamp_bump CASCADE`, `CREATE SCHEMA writeamp_bump`,
		`CREATE TABLE writeamp_bump.t (id int PRIMARY KEY, v int)`, `INSERT INTO writeamp_bump.t VALUES (1, 0)`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	defer db.Exec(`DROP SCHEMA IF EXISTS writeamp_bump CASCADE`)
	run := lockWaitThroughTheWindow(t, db, s, "writeamp_bump", "writeamp_bump.t", "Lock.transactionid")
	// Between two bumps the session waits for the runner's next command
	// (Client.ClientRead): idle, so it must be in no share of the active
	// time, overall or per operation (issue 27: 0.5-5.3% of it was, when
	// state and wait_event were read from different rows).
	for k, m := range run.Database {
		if strings.Contains(k, "wait_share.") && strings.HasSuffix(k, ".Client.ClientRead") {
			t.Errorf("PostgreSQL %s: idle %s = %v (%s)", s.Version, k, m.V(), m.Source)
		}
	}
	t.Logf("PostgreSQL %s: shares %v", s.Version, shares(run.Database))
}

func TestWindowSeesARowLockWaitMariaDB(t *testing.T) {
	t.Parallel()
	db, s := mysqltest.Open(t)
	name := mysqltest.TempDatabase(t, db)
	mysqltest.Exec(t, db, "CREATE TABLE "+name+".t (id int PRIMARY KEY, v int) ENGINE=InnoDB", "INSERT INTO "+name+".t VALUES (1, 0)")
	lockWaitThroughTheWindow(t, db, s, name, name+".t", "Lock.row_lock")
}

// The wait sampler's reads write no WAL either: 300 ms of sampling on an
// idle server leaves the insert position where it was (one clean attempt of
// a few: an idle server still logs running-xacts now and then).
func matrixSamplerWritesNoWAL(t *testing.T, db *sql.DB, s dialects.Server) {
	side, note, err := (pgcollect.PgStatActivity{}).OpenSampler(context.Background(), db, s)
	if err != nil || side == nil {
		t.Fatalf("no database of its own for the sampler: %v %s", err, note)
	}
	defer side.Close()
	for attempt := 0; attempt < 5; attempt++ {
		var a, b string
		db.QueryRow(`SELECT pg_current_wal_insert_lsn()::text`).Scan(&a)
		sampling, err := (pgcollect.PgStatActivity{}).Start(context.Background(), side, s, collectors.SampleTarget{})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
		cs, err := sampling.Stop()
		if err != nil || len(cs) == 0 {
			t.Fatalf("sampling: %v %v", cs, err)
		}
		db.QueryRow(`SELECT pg_current_wal_insert_lsn()::text`).Scan(&b)
		if a == b {
			return
		}
		time.Sleep(300 * time.Millisecond)
	}
	t.Error("the WAL insert position moved across every sampling attempt")
}
