package refreshtoken

import (
	"testing"
	"time"
)

// drive runs a whole plan through steps without a database, applying each
// operation as a committed transaction would, and counts the statements.
func drive(t *testing.T, p Params, variant string) (map[string]int, *Plan) {
	t.Helper()
	w := New(p)
	w.variant = variant
	tx := texts{"rt_insert_user_session": "x"}
	for _, n := range StatementNames {
		tx[n] = n
	}
	plan := w.ensurePlan()
	got := map[string]int{}
	c := plan.cursor(0, 1)
	for {
		ev, ok := c.next()
		if !ok {
			return got, plan
		}
		steps, apply := w.steps(tx, ev)
		if len(steps) == 0 {
			got["no statement"]++
		}
		for _, s := range steps {
			got[s.Name]++
		}
		apply()
	}
}

// The default scenario is keycloak-benchmark's: the first refresh follows
// the login within its second, so it finds LAST_SESSION_REFRESH unchanged and
// sends nothing; the other nine each update both rows once. With the
// expiration index keyed on LAST_SESSION_REFRESH that is 1 + 9 = 10 index
// entries per login, PR #51904's 15,020 for 1,502 logins.
func TestFirstRefreshInTheLoginsSecondSendsNothing(t *testing.T) {
	t.Parallel()
	p := DefaultParams()
	p.Logins = 300
	got, plan := drive(t, p, "baseline")
	logins, logouts := p.Logins, plan.Logouts()
	want := map[string]int{
		"no statement":                       logins, // the first refresh of each session
		"rt_insert_user_session":             logins,
		"rt_insert_client_session":           logins,
		"rt_update_user_session":             9 * logins,
		"rt_update_client_session":           9 * logins,
		"rt_lock_user_session_skip_locked":   9*logins + logouts,
		"rt_lock_client_session_skip_locked": 9*logins + logouts,
		"rt_select_user_session":             logins + 9*logins,
		"rt_select_client_sessions":          9*logins + logouts,
		"rt_delete_client_session":           logouts,
		"rt_lock_user_session":               logouts,
		"rt_delete_user_session":             logouts,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %d, want %d", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("statements %v, want exactly %v", got, want)
	}
}

// The count follows from the clock, not from a constant: a first refresh a
// second after the login writes (10 updates per login), and refreshes every
// 500 ms write only when the second changes.
func TestRefreshWritesOnlyWhenTheSecondChanges(t *testing.T) {
	t.Parallel()
	p := DefaultParams()
	p.Logins, p.LogoutPercent = 50, 0
	p.FirstRefreshAfter = time.Second
	if got, _ := drive(t, p, "baseline"); got["rt_update_user_session"] != 10*p.Logins || got["no statement"] != 0 {
		t.Errorf("first refresh 1 s after the login: %v", got)
	}
	p.FirstRefreshAfter, p.RefreshPeriod = 0, 500*time.Millisecond
	want := 0
	plan := NewPlan(p.Logins, p.RefreshesPerLogin, 500, 200, 0, p.Seed)
	for i := 0; i < p.Logins; i++ {
		login := int64(i) * plan.ArrivalMS
		seconds := map[int64]bool{login / 1000: true}
		for k := 0; k < p.RefreshesPerLogin; k++ {
			seconds[(login+int64(k)*500)/1000] = true
		}
		want += len(seconds) - 1 // every second after the login's is written once
	}
	got, _ := drive(t, p, "baseline")
	if got["rt_update_user_session"] != want || got["rt_update_client_session"] != want {
		t.Errorf("refreshes every 500 ms: %d user and %d client updates, want %d each", got["rt_update_user_session"], got["rt_update_client_session"], want)
	}
}

// Coarse: the same updates, none of them writes LAST_SESSION_REFRESH_COARSE
// within a 20-second session (granularity 900 s, boundaries staggered by the
// creation time); a short max idle makes sessions cross boundaries.
func TestCoarseColumnIsWrittenOnlyWhenItChanges(t *testing.T) {
	t.Parallel()
	p := DefaultParams()
	p.Logins = 100
	got, _ := drive(t, p, "coarse")
	if got["rt_update_user_session"] != 9*p.Logins || got["rt_update_user_session_coarse"] != 0 {
		t.Errorf("default coarse run: %v", got)
	}
	p.MaxIdle = 8 * time.Second // granularity 4 s: a boundary every other refresh
	got, _ = drive(t, p, "coarse")
	if got["rt_update_user_session_coarse"] == 0 || got["rt_update_user_session"]+got["rt_update_user_session_coarse"] != 9*p.Logins {
		t.Errorf("max idle 8 s: %v", got)
	}
}
