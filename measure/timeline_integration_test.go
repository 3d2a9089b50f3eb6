package measure_test

import (
	"context"
	"database/sql"
	"io"
	"testing"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/internal/testing/testenv"
	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/result"
)

// sampled measures cmd with a timeline every second.
func sampled(t *testing.T, db *sql.DB, s dialects.Server, sc collectors.Scope, cmd []string, every time.Duration) *result.Run {
	t.Helper()
	w := window(t, db, s)
	if every > 0 {
		w.Observers = append(w.Observers, &measure.Timeline{Every: every, Keep: true})
	}
	res, code, err := (&measure.Wrapped{Window: w, Scope: sc, Command: cmd, Stdout: io.Discard}).Run(context.Background())
	if err != nil || code != 0 {
		t.Fatalf("measure: exit %d, %v", code, err)
	}
	return &res.Runs[0]
}

// Two bursts of inserts three seconds apart: the timeline shows the first
// one alone before the second, the log position it reads never passes the
// window's own log bytes, and once the sessions have published (the command
// waits before it ends) the sampled rows are exactly the rows inserted.
func TestTimelineShowsWhenTheWritesHappened(t *testing.T) {
	t.Parallel()
	db, s := openPG(t, testenv.DSN(t, pgEnv))
	for _, q := range []string{`DROP SCHEMA IF EXISTS tl CASCADE`, `CREATE SCHEMA tl`, `CREATE TABLE tl.t (id int PRIMARY KEY, v int) WITH (fillfactor = 50)`} {
		mustExec(t, db, q)
	}
	t.Cleanup(func() { db.Exec(`DROP SCHEMA IF EXISTS tl CASCADE`) })
	dsn := testenv.DSN(t, pgEnv)
	cmd := []string{"bash", "-c", `set -e
psql "$1" -X -q -v ON_ERROR_STOP=1 -c 'INSERT INTO tl.t SELECT g, 0 FROM generate_series(1, 2000) g'
sleep 3
psql "$1" -X -q -v ON_ERROR_STOP=1 -c 'INSERT INTO tl.t SELECT g, 0 FROM generate_series(2001, 7000) g' -c 'UPDATE tl.t SET v = 1 WHERE id <= 300'
sleep 2`, "bash", dsn}
	psqlCmd(t, dsn) // skips or fails without psql
	run := sampled(t, db, s, collectors.Scope{Schemas: []string{"tl"}}, cmd, time.Second)
	sm := run.Samples
	if sm == nil || len(sm.Points) < 6 {
		t.Fatalf("want a reading a second over ~5 s, got %+v", sm)
	}
	if ls, _ := sm.Lookup("log_bytes"); ls.Exactness != result.Exact {
		t.Errorf("log bytes series %+v: the WAL position is exact", ls)
	}
	if rs, _ := sm.Lookup("rows_inserted"); rs.Exactness != result.Approx || rs.Note == "" {
		t.Errorf("rows series %+v: published statistics are approx per interval, and say why", rs)
	}
	between := false
	for _, p := range sm.Points {
		if p.Values["rows_inserted"] == 2000 {
			between = true
		}
		if p.Values["log_bytes"] > run.Database["log_bytes"].V() {
			t.Errorf("at %.1f s the sampled log (%v) is past the window's (%v)", p.T, p.Values["log_bytes"], run.Database["log_bytes"].V())
		}
	}
	if !between {
		t.Errorf("no reading saw the first burst alone (2,000 rows): %+v", sm.Points)
	}
	last := sm.Points[len(sm.Points)-1]
	hot := run.Table("t").Metrics["hot_updates"]
	if last.Values["rows_inserted"] != 7000 || last.Values["rows_updated"] != 300 || last.Values["hot_updates"] != hot.V() || hot.V() == 0 {
		t.Errorf("last reading %+v: want exactly 7,000 inserted, 300 updated, and the HOT updates the window counted (%v)", last.Values, hot.V())
	}
	if last.Values["log_bytes"] < run.Database["log_bytes_in_scope"].V() {
		t.Errorf("sampled log %v is less than the WAL of the measured table alone (%v)", last.Values["log_bytes"], run.Database["log_bytes_in_scope"].V())
	}
	if st := sm.Stats("log_bytes"); st.N < 5 || st.Max <= 0 || st.Min < 0 {
		t.Errorf("log rate stats %+v", st)
	}
}

// The sampler's reads are rolled back: a window with a timeline counts as
// many commits as one without (writeamp's own settling commits the same).
// Autovacuum or a late session of another test can commit inside either
// window, so one clean attempt of a few must show it; a sampler that
// commits would add to every attempt.
func TestTimelineAddsNoCommit(t *testing.T) {
	t.Parallel()
	db, s := openPG(t, testenv.DSN(t, pgEnv))
	cmd := []string{"sleep", "2.5"}
	for attempt := 0; attempt < 4; attempt++ {
		without := sampled(t, db, s, collectors.Scope{}, cmd, 0)
		with := sampled(t, db, s, collectors.Scope{}, cmd, time.Second)
		if with.Samples == nil || len(with.Samples.Points) < 3 {
			t.Fatalf("no samples: %+v", with.Samples)
		}
		a, b := without.Database["transactions_committed"].V(), with.Database["transactions_committed"].V()
		if a == b {
			return
		}
		t.Logf("attempt %d: transactions_committed %v with the sampler, %v without", attempt, b, a)
	}
	t.Error("every attempt counted other commits with the sampler than without: its reads must not count as commits")
}

// timelineWritesNoWAL: a second-by-second timeline on an idle server leaves
// the WAL insert position where it was (one clean attempt of a few: an idle
// server still logs running-xacts now and then). Run on every major.
func timelineWritesNoWAL(t *testing.T, db *sql.DB, s dialects.Server) {
	w := window(t, db, s)
	sp := &measure.Span{Before: &collectors.Snapshot{}}
	for attempt := 0; attempt < 5; attempt++ {
		var a, b string
		db.QueryRow(`SELECT pg_current_wal_insert_lsn()::text`).Scan(&a)
		ob, err := (&measure.Timeline{Every: time.Second, Keep: true}).Observe(context.Background(), w, sp)
		if err != nil || ob == nil {
			t.Fatalf("timeline: %v", err)
		}
		time.Sleep(2200 * time.Millisecond)
		if err := ob.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		run := &result.Run{}
		ob.(measure.RunObservation).AddToRun(run)
		if run.Samples == nil || len(run.Samples.Points) < 3 {
			t.Fatalf("want 3 readings, got %+v", run.Samples)
		}
		db.QueryRow(`SELECT pg_current_wal_insert_lsn()::text`).Scan(&b)
		if a == b {
			return
		}
		time.Sleep(300 * time.Millisecond)
	}
	t.Error("the WAL insert position moved across every sampling attempt")
}
