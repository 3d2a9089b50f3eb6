package refreshtoken_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/internal/testing/mysqltest"
	"github.com/writeamp/writeamp/workloads"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

// runJob prepares a variant with preloaded sessions, runs the scenario and
// then the expiration job on a real server, and checks: the coarse updates
// are the crossings counted by hand, every find returned and every delete
// removed what the model expected (a mismatch fails the batch), and the
// tables are empty at the end, every session that did not log out deleted
// by the job.
func runJob(t *testing.T, target dialects.Target, variant string) {
	ctx := context.Background()
	p := refreshtoken.DefaultParams()
	p.Logins, p.RefreshesPerLogin, p.RefreshPeriod, p.Preload, p.ExpirationBatch = 120, 30, time.Minute, 700, 100
	w := refreshtoken.New(p)
	if err := w.Prepare(ctx, target, variant); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := w.Cleanup(ctx, target); err != nil {
			t.Error(err)
		}
	}()
	count := func(table string) int {
		var n int
		if err := target.DB.QueryRowContext(ctx, fmt.Sprintf("SELECT count(*) FROM %s.%s", w.Schema(), table)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count("offline_user_session"); n != p.Preload {
		t.Fatalf("%s: %d rows after --preload %d", variant, n, p.Preload)
	}
	ops, err := w.Ops()
	if err != nil {
		t.Fatal(err)
	}
	st, err := workloads.Runner{Target: target, Concurrency: 2}.Run(ctx, ops)
	if err != nil || len(st.Errors) > 0 {
		t.Fatalf("%s: scenario: %v %v", variant, err, st.Errors)
	}
	if variant == "coarse" {
		want := crossingsByHand(p.Logins, p.RefreshesPerLogin, p.RefreshPeriod.Milliseconds(), 200, 0, refreshtoken.Granularity(int64(p.MaxIdle.Seconds())))
		if got := st.Statements["rt_update_user_session_coarse"]; got != want || want == 0 {
			t.Errorf("coarse updates %d, crossings by hand %d", got, want)
		}
	}
	ep, err := w.Epilogue()
	if err != nil {
		t.Fatal(err)
	}
	js, err := workloads.Runner{Target: target, Concurrency: 1}.Run(ctx, ep.Ops)
	if err != nil || len(js.Errors) > 0 {
		t.Fatalf("%s: expiration job: %v %v", variant, err, js.Errors)
	}
	plan := refreshtoken.NewPlan(p.Logins, p.RefreshesPerLogin, p.RefreshPeriod.Milliseconds(), 200, p.LogoutPercent, p.Seed)
	want := int64(p.Logins - plan.Logouts() + p.Preload)
	if got := js.Statements["rt_expire_delete_user_sessions"]; got != want {
		t.Errorf("%s: the job deleted %d user sessions, want %d", variant, got, want)
	}
	if got := js.Statements["rt_expire_delete_client_sessions"]; got != want {
		t.Errorf("%s: the job deleted %d client sessions, want %d", variant, got, want)
	}
	if u, c := count("offline_user_session"), count("offline_client_session"); u != 0 || c != 0 {
		t.Errorf("%s: %d user and %d client sessions left after the job", variant, u, c)
	}
}

func TestExpirationJobOnPostgres(t *testing.T) {
	t.Parallel()
	target := pgTarget(t)
	for _, v := range refreshtoken.Variants {
		runJob(t, target, v)
	}
}

func TestExpirationJobOnMariaDB(t *testing.T) {
	t.Parallel()
	db, s := mysqltest.Open(t)
	target := dialects.Target{DB: db, Dialect: mysql.Dialect{}, Server: s}
	for _, v := range refreshtoken.Variants {
		runJob(t, target, v)
	}
}
