package measure_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/writeamp/writeamp/collectors"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/internal/testing/testenv"
	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/pgembed"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

// TestServerRestartMidRun restarts a throwaway server while the workload
// runs: the run fails naming the phase, and snapshots from both sides of
// the restart are refused as a pair (the counters were reset).
func TestServerRestartMidRun(t *testing.T) {
	t.Parallel()
	testenv.Heavy(t, "starts a PostgreSQL server of its own")
	if _, err := pgembed.FindBinaries(); err != nil {
		if testenv.CI() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	ctx := context.Background()
	srv, err := pgembed.Start(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	db, err := pg.Dialect{}.Open(ctx, srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := pg.Dialect{}.Probe(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	set := pgSet(t)
	before, err := set.Take(ctx, db, s, collectors.Scope{})
	if err != nil {
		t.Fatal(err)
	}

	p := smallParams()
	p.Logins = 50000
	done := make(chan error, 1)
	go func() {
		_, err := (&measure.Experiment{Window: window(t, db, s), Workload: refreshtoken.New(p), Variants: []string{"baseline"}, Concurrency: smallConcurrency, CleanupTimeout: 5 * time.Second}).Run(ctx)
		done <- err
	}()
	// Restart once the workload is sending its statements: a fixed pause
	// landed in the prepare phase on a loaded machine.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var n int
		// Updates counted, not an UPDATE's text in pg_stat_activity: a
		// worker that prepares its statements shows their text there
		// before the window's first snapshot, and a restart then fell on
		// the snapshot instead of the workload.
		if err := db.QueryRowContext(ctx, `SELECT coalesce(sum(n_tup_upd), 0) FROM pg_stat_user_tables WHERE relname = 'offline_user_session'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the workload sent no refresh within 60 s")
		}
	}
	if err := srv.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		var pe *measure.PhaseError
		if err == nil || !errors.As(err, &pe) || pe.Phase != "workload" {
			t.Fatalf("a run across a restart must fail naming the workload phase, got %v", err)
		}
		t.Logf("run failed as expected: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("the run did not notice the restart within 60 s")
	}

	s2, err := pg.Dialect{}.Probe(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	after, err := set.Take(ctx, db, s2, collectors.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := collectors.Diff(before, after); err == nil || !strings.Contains(err.Error(), "restarted") {
		t.Errorf("a diff across the restart must be refused: %v", err)
	}
}
