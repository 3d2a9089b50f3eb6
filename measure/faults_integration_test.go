package measure_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	_ "github.com/writeamp/writeamp/collectors/mysql"
	"github.com/writeamp/writeamp/dialects"
	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/internal/testing/testenv"
	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

// TestKilledConnectionMidRunFailsNamingThePhaseAndLeavesNothing kills the
// workload's sessions while it runs: the run must fail with the phase named,
// and the workload's schema must still be dropped.
func TestKilledConnectionMidRunFailsNamingThePhaseAndLeavesNothing(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, pgEnv)
	db, s := openPG(t, dsn)
	admin, _ := openPG(t, dsn)
	p := smallParams()
	p.Logins, p.RefreshesPerLogin = 50000, 10
	w := refreshtoken.New(p)
	go func() {
		// Kill once the workload is running (more rows than the 500 that
		// seed the planner statistics before the window): its sessions are
		// the ones that touch the workload's schema.
		for i := 0; i < 300; i++ {
			time.Sleep(100 * time.Millisecond)
			var rows int
			admin.QueryRow(`SELECT count(*) FROM writeamp_rt_` + w.Owned.RunID + `_baseline.offline_client_session`).Scan(&rows)
			if rows <= 500 {
				continue
			}
			var n int
			admin.QueryRow(`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
				WHERE application_name = 'writeamp' AND pid <> pg_backend_pid() AND query LIKE '%writeamp_rt_` + w.Owned.RunID + `%' AND query NOT LIKE '%pg_stat_activity%'`).Scan(&n)
			if n > 0 {
				return
			}
		}
	}()
	res, err := (&measure.Experiment{Window: window(t, db, s), Workload: w, Variants: []string{"baseline"}, Concurrency: smallConcurrency}).Run(context.Background())
	if err == nil {
		t.Fatal("a run whose connections were killed must fail")
	}
	var pe *measure.PhaseError
	if !errors.As(err, &pe) || pe.Phase != "workload" {
		t.Errorf("error %v should name the workload phase", err)
	}
	if res != nil && len(res.Runs) > 0 && !res.Runs[0].Partial {
		t.Error("a run cut short must be marked partial")
	}
	if left := schemasLike(t, admin, "writeamp_rt_"+w.Owned.RunID+"%"); len(left) != 0 {
		t.Errorf("schemas left behind after the killed run: %v", left)
	}
}

// TestConcurrency64OnPostgresHasNoErrors: 64 workers, zero failed operations.
func TestConcurrency64OnPostgresHasNoErrors(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, pgEnv)
	db, s := openPG(t, dsn)
	db.SetMaxOpenConns(70)
	p := smallParams()
	p.Logins, p.RefreshesPerLogin = 640, 3
	res, err := (&measure.Experiment{Window: window(t, db, s), Workload: refreshtoken.New(p), Variants: refreshtoken.Variants, Concurrency: 64}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range res.Runs {
		if len(run.Errors) > 0 || run.Operations["refreshes"] != 1920 {
			t.Errorf("%s: errors %v, operations %v", run.Variant, run.Errors, run.Operations)
		}
		// 2 updates per session: its first refresh shares the login's second.
		if run.Table("offline_user_session").Metrics["rows_updated"].V() != 1280 {
			t.Errorf("%s: rows_updated %v", run.Variant, run.Table("offline_user_session").Metrics["rows_updated"].V())
		}
	}
}

// TestConcurrency64OnMariaDBHasNoErrors: the same on InnoDB, where
// deadlocks would show up as retries (reported) or errors (a failure here).
func TestConcurrency64OnMariaDBHasNoErrors(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, "WRITEAMP_TEST_MYSQL_DSN")
	ctx := context.Background()
	d, _ := dialects.Get(my.Name)
	db, err := d.Open(ctx, dsn)
	if err != nil {
		if testenv.CI() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(70)
	s, err := d.Probe(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	p := smallParams()
	p.Logins, p.RefreshesPerLogin = 640, 3
	res, err := (&measure.Experiment{Window: window(t, db, s), Workload: refreshtoken.New(p), Variants: []string{"baseline"}, Concurrency: 64}).Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	run := res.Runs[0]
	if len(run.Errors) > 0 || run.Operations["refreshes"] != 1920 {
		t.Errorf("errors %v, operations %v, warnings %v", run.Errors, run.Operations, strings.Join(run.Warnings, "; "))
	}
}
