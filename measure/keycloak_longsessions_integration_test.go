package measure_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/writeamp/writeamp/internal/testing/testenv"
	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/result"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

// crossingsInClosedForm counts coarse-boundary crossings without the
// schedule or the Coarse function: a session's coarse value is
// ⌊(t − off)/g⌋·g + off with off = created mod g, non-decreasing in t, so
// the crossings of a session are the boundaries between its creation and
// its last written second, ⌊(last − off)/g⌋ − ⌊(created − off)/g⌋. Refreshes
// are `period` apart from the login's own instant, one login every
// `arrival`; logouts come after the last refresh and change nothing.
func crossingsInClosedForm(logins, refreshes int, period, arrival time.Duration, gran int64) int64 {
	var n int64
	for i := 0; i < logins; i++ {
		at := time.Duration(i) * arrival
		created := refreshtoken.Epoch + int64(at/time.Second)
		last := refreshtoken.Epoch + int64((at+time.Duration(refreshes-1)*period)/time.Second)
		off := created % gran
		n += (last-off)/gran - (created-off)/gran
	}
	return n
}

// Sessions that live past max-idle/2 (40 refreshes a minute apart, a
// granularity of 900 s) cross coarse boundaries: the run's
// coarse_boundary_crossings must equal the closed-form count, coarse must
// come out below 100% HOT and above 0, and its non-HOT updates must be at
// least the crossings. The slack: a refresh that crosses no boundary is
// still not HOT when its page has no room for the new version (fill factor
// 100, pruning held back), so non-HOT − crossings ≤ newpage_updates; and
// every non-HOT update adds an entry to the last-refresh index, so that
// index's leaf inserts are the logins plus the non-HOT updates. Baseline has
// no coarse column and reports no crossings.
func TestLongSessionsCrossCoarseBoundariesOnPostgres(t *testing.T) {
	t.Parallel()
	db, s := openPG(t, testenv.DSN(t, pgEnv))
	p := refreshtoken.DefaultParams()
	p.Logins, p.RefreshesPerLogin, p.RefreshPeriod, p.ExpirationJob = 150, 40, time.Minute, false
	gran := refreshtoken.Granularity(int64(p.MaxIdle.Seconds()))
	want := crossingsInClosedForm(p.Logins, p.RefreshesPerLogin, p.RefreshPeriod, time.Second/time.Duration(p.UsersPerSecond), gran)
	if want == 0 {
		t.Fatal("the closed form counts no crossing: the sessions do not live past max-idle/2")
	}
	waitForAutovacuum(t, db)
	res, err := (&measure.Experiment{Window: window(t, db, s), Workload: refreshtoken.New(p), Variants: refreshtoken.Variants}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 2 {
		t.Fatalf("%d runs", len(res.Runs))
	}
	// The result records the server's checkpoint settings as SHOW prints
	// them, for plan's full-page-image note.
	for _, name := range []string{"checkpoint_timeout", "max_wal_size"} {
		var v string
		if err := db.QueryRow("SELECT current_setting($1)", name).Scan(&v); err != nil || res.Server.Settings[name] != v {
			t.Errorf("server.settings %s = %q, the server says %q (%v)", name, res.Server.Settings[name], v, err)
		}
	}
	base, coarse := res.Runs[0], res.Runs[1]
	for _, run := range res.Runs {
		if len(run.Errors) > 0 || run.Operations["refreshes"] != int64(p.Logins*p.RefreshesPerLogin) {
			t.Fatalf("%s: operations %v, errors %v", run.Variant, run.Operations, run.Errors)
		}
	}
	for _, name := range []string{result.CoarseBoundaryCrossings.Name, result.CoarseBoundaryCrossingsPerRefresh.Name} {
		if m, ok := base.Database[name]; ok {
			t.Errorf("baseline reports %s = %v (%s): it has no coarse column", name, m.V(), m.Source)
		}
	}
	cb := coarse.Database[result.CoarseBoundaryCrossings.Name]
	if !cb.OK() || cb.Exactness != result.Exact || int64(cb.V()) != want {
		t.Errorf("coarse_boundary_crossings %v (%s, %s), the closed form counts %d", cb.V(), cb.Exactness, cb.Source, want)
	}
	for _, w := range coarse.Warnings {
		if strings.Contains(w, "coarse-boundary crossings") {
			t.Errorf("warning: %s", w)
		}
	}
	us := coarse.Table("offline_user_session")
	hot, upd := metric(t, us, "hot_updates").V(), metric(t, us, "rows_updated").V()
	nonHOT := upd - hot
	if hot <= 0 || hot >= upd {
		t.Errorf("coarse: %v of %v user-session updates HOT, want below 100%% and above 0", hot, upd)
	}
	if nonHOT < float64(want) {
		t.Errorf("coarse: %v non-HOT updates, fewer than the %d crossings that each change an indexed column", nonHOT, want)
	}
	moved := us.Metrics["newpage_updates"]
	if moved.OK() && nonHOT-float64(want) > moved.V() {
		t.Errorf("coarse: %v non-HOT updates beyond the crossings, only %v moved to another page", nonHOT-float64(want), moved.V())
	}
	li := metric(t, coarse.Index("idx_user_session_expiration_last_refresh"), "leaf_inserts").V()
	ins := metric(t, us, "rows_inserted").V()
	if li-ins != nonHOT {
		t.Errorf("coarse: the last-refresh index got %v entries beyond the %v logins, want one per non-HOT update (%v)", li-ins, ins, nonHOT)
	}
	t.Logf("%d logins × %d refreshes %s apart, granularity %d s: %d crossings (closed form %d); coarse %v/%v HOT (%.2f%%), %v non-HOT, %v moved to a new page (%s); last-refresh index %v leaf inserts; baseline %v/%v HOT",
		p.Logins, p.RefreshesPerLogin, p.RefreshPeriod, gran, int64(cb.V()), want, hot, upd, 100*hot/upd, nonHOT, moved.V(), moved.Exactness, li,
		metric(t, base.Table("offline_user_session"), "hot_updates").V(), metric(t, base.Table("offline_user_session"), "rows_updated").V())
}
