package refreshtoken_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/internal/testing/mysqltest"
	"github.com/writeamp/writeamp/result"
	"github.com/writeamp/writeamp/workloads"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

// crossingsMixed counts by hand, from the schedule's times, the coarse
// values each session's written seconds take, minus one, a regular session
// by half max idle, an offline one by half the offline idle timeout.
func crossingsMixed(p refreshtoken.Params, plan *refreshtoken.Plan) int64 {
	var n int64
	for i := 0; i < p.Logins; i++ {
		g := refreshtoken.Granularity(int64(p.MaxIdle.Seconds()))
		if plan.IsOffline(i) {
			g = refreshtoken.Granularity(int64(p.OfflineMaxIdle.Seconds()))
		}
		at := int64(i) * 200
		created := refreshtoken.Epoch + at/1000
		last, seen := created, map[int64]bool{refreshtoken.Coarse(created, created, g): true}
		for k := 0; k < p.RefreshesPerLogin; k++ {
			if sec := refreshtoken.Epoch + (at+int64(k)*p.RefreshPeriod.Milliseconds())/1000; sec > last {
				last = sec
				seen[refreshtoken.Coarse(sec, created, g)] = true
			}
		}
		n += int64(len(seen) - 1)
	}
	return n
}

// firstOps is the first n operations of ops, one worker.
func firstOps(ops workloads.Ops, n int) workloads.Ops {
	return func(worker, workers int) workloads.Next {
		next, i := ops(worker, workers), 0
		return func() (workloads.Op, bool) {
			if i >= n {
				return workloads.Op{}, false
			}
			i++
			return next()
		}
	}
}

// runOffline runs the coarse variant with half the sessions offline and a
// one-minute offline idle timeout (a 30 s coarse granularity: 10-minute
// sessions cross it about 20 times, the regular ones' 900 s at most once),
// then the expiration job, and checks on the server: every row carries its
// session's flag and the coarse value of its own granularity, the coarse
// updates are the crossings counted by hand, the job's first run deletes
// exactly the offline sessions (past their cut-off) and leaves the regular
// ones, and the tables are empty at the end.
func runOffline(t *testing.T, target dialects.Target) {
	ctx := context.Background()
	p := refreshtoken.DefaultParams()
	p.Logins, p.RefreshesPerLogin, p.RefreshPeriod, p.Preload, p.ExpirationBatch = 80, 30, 20*time.Second, 100, 50
	p.OfflinePercent, p.OfflineMaxIdle = 50, time.Minute
	w := refreshtoken.New(p)
	if err := w.Prepare(ctx, target, "coarse"); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := w.Cleanup(ctx, target); err != nil {
			t.Error(err)
		}
	}()
	count := func(table, flag string) int {
		var n int
		q := fmt.Sprintf("SELECT count(*) FROM %s.%s WHERE offline_flag = '%s'", w.Schema(), table, flag)
		if err := target.DB.QueryRowContext(ctx, q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	both := func(flag string) (int, int) {
		return count("offline_user_session", flag), count("offline_client_session", flag)
	}
	if u, c := both("1"); u != 50 || c != 50 {
		t.Fatalf("after --preload 100 at 50%% offline: %d user and %d client sessions offline, want 50 each", u, c)
	}
	ops, err := w.Ops()
	if err != nil {
		t.Fatal(err)
	}
	st, err := workloads.Runner{Target: target, Concurrency: 2}.Run(ctx, ops)
	if err != nil || len(st.Errors) > 0 {
		t.Fatalf("scenario: %v %v", err, st.Errors)
	}
	plan := refreshtoken.NewPlan(p.Logins, p.RefreshesPerLogin, p.RefreshPeriod.Milliseconds(), 200, p.LogoutPercent, p.Seed).WithOffline(p.OfflinePercent)
	offLeft, regLeft := 50, 50
	for i := 0; i < p.Logins; i++ {
		switch {
		case plan.LogsOut(i):
		case plan.IsOffline(i):
			offLeft++
		default:
			regLeft++
		}
	}
	if u, c := both("1"); u != offLeft || c != offLeft {
		t.Errorf("after the scenario: %d user and %d client sessions offline, the schedule leaves %d", u, c, offLeft)
	}
	if u, c := both("0"); u != regLeft || c != regLeft {
		t.Errorf("after the scenario: %d user and %d client sessions regular, the schedule leaves %d", u, c, regLeft)
	}
	// Each row's coarse value is its own granularity's.
	rows, err := target.DB.QueryContext(ctx, fmt.Sprintf("SELECT offline_flag, created_on, last_session_refresh, last_session_refresh_coarse FROM %s.offline_user_session", w.Schema()))
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var flag string
		var created, last, coarse int64
		if err := rows.Scan(&flag, &created, &last, &coarse); err != nil {
			t.Fatal(err)
		}
		g := refreshtoken.Granularity(int64(p.MaxIdle.Seconds()))
		if flag == "1" {
			g = 30
		}
		if want := refreshtoken.Coarse(last, created, g); coarse != want {
			t.Errorf("offline_flag %s, created %d, last refresh %d: coarse %d, want %d", flag, created, last, coarse, want)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	want := crossingsMixed(p, plan)
	if got := st.Statements["rt_update_user_session_coarse"]; got != want || want < int64(p.Logins/2)*10 {
		t.Errorf("coarse updates %d, crossings by hand %d", got, want)
	}
	run := &result.Run{Variant: "coarse", Database: map[string]result.Metric{}, Operations: map[string]int64{"refreshes": st.Operations["refreshes"]}}
	w.AmendRun(run, st)
	if m := run.Database[result.CoarseBoundaryCrossings.Name]; m.V() != float64(want) || len(run.Warnings) > 0 {
		t.Errorf("coarse_boundary_crossings %v, by hand %d; warnings %v", m.V(), want, run.Warnings)
	}
	if m := run.Database[result.OfflineSessions.Name]; m.V() != 40 {
		t.Errorf("offline_sessions %v (%s), want 40", m.V(), m.Source)
	}
	t.Logf("%s: %d refreshes, %d coarse updates (by hand %d), %d offline and %d regular sessions left", target.Server, st.Operations["refreshes"], st.Statements["rt_update_user_session_coarse"], want, offLeft, regLeft)

	// The job's first run is at 900 s: the offline cut-off, 900 - 60 - 180
	// = 660 s, is past every offline session's last refresh (at most
	// 596 s); the regular one, 900 - 1800 - 180 s, only past some of the
	// preloaded sessions', which the server says.
	var dueRegular int
	q := fmt.Sprintf("SELECT count(*) FROM %s.offline_user_session WHERE offline_flag = '0' AND last_session_refresh < %d", w.Schema(), refreshtoken.Epoch+900-1800-180)
	if err := target.DB.QueryRowContext(ctx, q).Scan(&dueRegular); err != nil {
		t.Fatal(err)
	}
	ep, err := w.Epilogue()
	if err != nil {
		t.Fatal(err)
	}
	first := 0
	for _, r := range w.JobBatchRuns() {
		if r == 0 {
			first++
		}
	}
	js, err := workloads.Runner{Target: target, Concurrency: 1}.Run(ctx, firstOps(ep.Ops, first))
	if err != nil || len(js.Errors) > 0 {
		t.Fatalf("expiration job, first run: %v %v", err, js.Errors)
	}
	if u, c := both("1"); u != 0 || c != 0 {
		t.Errorf("after the job's first run: %d user and %d client sessions offline left", u, c)
	}
	if u, c := both("0"); u != regLeft-dueRegular || c != regLeft-dueRegular {
		t.Errorf("after the job's first run: %d user and %d client sessions regular, want %d - %d due", u, c, regLeft, dueRegular)
	}
	if got := js.Statements["rt_expire_delete_user_sessions"]; got != int64(offLeft+dueRegular) {
		t.Errorf("the job's first run deleted %d user sessions, want the %d offline and %d regular ones due", got, offLeft, dueRegular)
	}
	// The rest of the job: the runs after the first.
	rest := func(worker, workers int) workloads.Next {
		next := ep.Ops(worker, workers)
		for i := 0; i < first; i++ {
			next()
		}
		return next
	}
	js2, err := workloads.Runner{Target: target, Concurrency: 1}.Run(ctx, rest)
	if err != nil || len(js2.Errors) > 0 {
		t.Fatalf("expiration job, later runs: %v %v", err, js2.Errors)
	}
	if got := js2.Statements["rt_expire_delete_user_sessions"]; got != int64(regLeft-dueRegular) {
		t.Errorf("the job's later runs deleted %d user sessions, want the %d regular ones left", got, regLeft-dueRegular)
	}
	if u, c := count("offline_user_session", "0")+count("offline_user_session", "1"), count("offline_client_session", "0")+count("offline_client_session", "1"); u != 0 || c != 0 {
		t.Errorf("%d user and %d client sessions left after the job", u, c)
	}
	t.Logf("%s: the job's first run (%d batches) deleted %d offline and %d regular sessions, the later runs (%d batches) %d regular ones",
		target.Server, first, offLeft, dueRegular, len(w.JobBatchRuns())-first, regLeft-dueRegular)
}

func TestOfflineSessionsOnPostgres(t *testing.T) {
	t.Parallel()
	runOffline(t, pgTarget(t))
}

func TestOfflineSessionsOnMariaDB(t *testing.T) {
	t.Parallel()
	db, s := mysqltest.Open(t)
	runOffline(t, dialects.Target{DB: db, Dialect: mysql.Dialect{}, Server: s})
}
