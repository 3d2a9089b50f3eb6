package measure_test

import (
	"context"
	"testing"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/internal/testing/mysqltest"
	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/result"
	"github.com/writeamp/writeamp/workloads"
)

// On MariaDB the status variables are current when read, so the timeline's
// rows are exact in time: the first burst shows alone, and the last reading
// holds exactly the rows and commits the window counted.
func TestMariaDBTimelineCountsRowsWhenTheyHappen(t *testing.T) {
	t.Parallel()
	db, s := mysqltest.Open(t)
	name := mysqltest.TempDatabase(t, db)
	mysqltest.Exec(t, db, "CREATE TABLE "+name+".t (id int PRIMARY KEY AUTO_INCREMENT, v int, KEY (v)) ENGINE=InnoDB")
	ctx := context.Background()
	w := window(t, db, s)
	w.Observers = append(w.Observers, &measure.Timeline{Every: time.Second, Keep: true})
	w.Instrument(ctx, false)
	defer w.Restore(ctx, 0)
	sp, err := w.Begin(ctx, collectors.Scope{Schemas: []string{name}})
	if err != nil {
		t.Fatal(err)
	}
	mysqltest.Exec(t, db, "INSERT INTO "+name+".t (v) SELECT seq FROM seq_1_to_1000")
	time.Sleep(1500 * time.Millisecond)
	mysqltest.Exec(t, db, "INSERT INTO "+name+".t (v) SELECT seq FROM seq_1_to_3000", "UPDATE "+name+".t SET v = v + 1 WHERE id <= 500")
	time.Sleep(1500 * time.Millisecond)
	d, err := sp.End(ctx, measure.Quiet(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	run := measure.BuildRun("mariadb", d, workloads.Stats{}, "")
	sp.AddToRun(run)
	sm := run.Samples
	if sm == nil || len(sm.Points) < 4 {
		t.Fatalf("want a reading a second over 3 s, got %+v", sm)
	}
	for _, n := range []string{"log_bytes", "rows_inserted", "rows_updated", "rows_deleted", "transactions_committed"} {
		if _, ok := sm.Lookup(n); !ok {
			t.Errorf("series %s not sampled (notes %q)", n, sm.Notes)
		}
	}
	alone := false
	for _, p := range sm.Points {
		alone = alone || p.Values["rows_inserted"] == 1000
		if p.Values["log_bytes"] > run.Database["log_bytes"].V() {
			t.Errorf("at %.1f s the sampled redo (%v) is past the window's (%v)", p.T, p.Values["log_bytes"], run.Database["log_bytes"].V())
		}
	}
	if !alone {
		t.Errorf("no reading saw the first burst alone: %+v", sm.Points)
	}
	last := sm.Points[len(sm.Points)-1].Values
	for _, n := range []string{"rows_inserted", "rows_updated", "transactions_committed"} {
		if m := run.Database[n]; !m.OK() || last[n] != m.V() {
			t.Errorf("%s: last reading %v, the window counted %v", n, last[n], m.V())
		}
	}
	if last["rows_inserted"] != 4000 || last["rows_updated"] != 500 {
		t.Errorf("last reading %v: want 4,000 rows inserted and 500 updated", last)
	}
}

// The sampler's reads (SHOW GLOBAL STATUS, INNODB_METRICS) start no InnoDB
// transaction: a timeline on an idle server adds no redo and no commit
// (one clean attempt of a few: InnoDB's background work writes now and then).
func TestMariaDBTimelineAddsNoRedo(t *testing.T) {
	t.Parallel()
	db, s := mysqltest.Open(t)
	ctx := context.Background()
	w := window(t, db, s)
	w.Instrument(ctx, false) // the trx monitors, so commits are sampled too
	defer w.Restore(ctx, 0)
	read := func() (lsn, commits float64) {
		if err := db.QueryRow(`SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'INNODB_LSN_CURRENT'`).Scan(&lsn); err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRow(`SELECT SUM(COUNT) FROM information_schema.INNODB_METRICS WHERE NAME IN ('trx_rw_commits', 'trx_ro_commits', 'trx_nl_ro_commits')`).Scan(&commits); err != nil {
			t.Fatal(err)
		}
		return
	}
	tl := &measure.Timeline{Every: time.Second, Keep: true}
	for attempt := 0; attempt < 5; attempt++ {
		lsn0, c0 := read()
		if err := tl.Prepare(ctx, w); err != nil {
			t.Fatal(err)
		}
		ob, err := tl.Observe(ctx, w, &measure.Span{Before: &collectors.Snapshot{}})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(2200 * time.Millisecond)
		ob.Stop(ctx)
		run := &result.Run{}
		ob.(measure.RunObservation).AddToRun(run)
		if run.Samples == nil || len(run.Samples.Points) < 3 {
			t.Fatalf("want 3 readings, got %+v", run.Samples)
		}
		if _, ok := run.Samples.Lookup("transactions_committed"); !ok {
			t.Fatalf("commits not sampled: %q", run.Samples.Notes)
		}
		lsn1, c1 := read()
		if lsn0 == lsn1 && c0 == c1 {
			return
		}
		t.Logf("attempt %d: redo %v → %v, commits %v → %v", attempt, lsn0, lsn1, c0, c1)
		time.Sleep(500 * time.Millisecond)
	}
	t.Error("the redo LSN or the commit count moved across every sampling attempt")
}
