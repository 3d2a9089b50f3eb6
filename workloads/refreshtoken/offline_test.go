package refreshtoken

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
	"github.com/writeamp/writeamp/workloads"
)

// Exactly round(logins × P / 100) sessions are offline, the same ones for
// the same seed, and choosing them leaves who logs out as it was.
func TestOfflineChoiceIsExactAndDeterministic(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		logins int
		pct    float64
		want   int
	}{{1500, 0, 0}, {1500, 50, 750}, {1500, 10, 150}, {7, 50, 4}, {3, 10, 0}, {5, 10, 1}, {200, 100, 200}, {1001, 33.3, 333}} {
		base := NewPlan(c.logins, 10, 2000, 200, 10, 7)
		p := NewPlan(c.logins, 10, 2000, 200, 10, 7).WithOffline(c.pct)
		if got := p.Offline(); got != c.want {
			t.Errorf("%d logins, %g%%: %d offline, want %d", c.logins, c.pct, got, c.want)
		}
		if c.want == 0 && p.offline != nil {
			t.Errorf("%d logins, %g%%: no session is offline, the plan holds a slice for them", c.logins, c.pct)
		}
		if !slices.Equal(base.logouts, p.logouts) {
			t.Errorf("%d logins, %g%%: the offline choice moved the logouts", c.logins, c.pct)
		}
		again := NewPlan(c.logins, 10, 2000, 200, 10, 7).WithOffline(c.pct)
		if !slices.Equal(again.offline, p.offline) {
			t.Errorf("%d logins, %g%%: the same seed chose other offline sessions", c.logins, c.pct)
		}
	}
	a, b := NewPlan(1000, 1, 1000, 100, 0, 1).WithOffline(50), NewPlan(1000, 1, 1000, 100, 0, 2).WithOffline(50)
	if slices.Equal(a.offline, b.offline) {
		t.Error("another seed must choose other offline sessions")
	}
	// The offline stream is not the logouts': at the same share they pick
	// other sessions.
	l := NewPlan(1000, 1, 1000, 100, 50, 1).WithOffline(50)
	if slices.Equal(l.logouts, l.offline) {
		t.Error("the offline sessions are the logging-out ones: the streams are not independent")
	}
}

// flagArgs are the OFFLINE_FLAG values a statement binds: the only "0" and
// "1" string arguments the workload passes (ids, JSON and realm are longer).
func flagArgs(args []any) []string {
	var out []string
	for _, a := range args {
		if s, ok := a.(string); ok && (s == regularFlag || s == offlineFlag) {
			out = append(out, s)
		}
	}
	return out
}

// Every statement of an offline session binds OFFLINE_FLAG '1' (login,
// refreshes, logout, both tables) and looks it up with the offline idle
// timeout; a regular session's statements are what they are without
// offline sessions.
func TestOfflineSessionsBindTheirFlag(t *testing.T) {
	t.Parallel()
	p := DefaultParams()
	p.Logins, p.LogoutPercent, p.RefreshesPerLogin, p.RefreshPeriod = 200, 50, 30, 20*time.Second
	p.MaxIdle, p.OfflineMaxIdle = 30*time.Minute, 2*time.Minute
	tx := texts{"rt_insert_user_session": "x"}
	for _, n := range StatementNames {
		tx[n] = n
	}
	steps := func(pct float64) map[string][][]any {
		q := p
		q.OfflinePercent = pct
		w := New(q)
		w.variant = "coarse"
		out := map[string][][]any{}
		c := w.ensurePlan().cursor(0, 1)
		for {
			ev, ok := c.next()
			if !ok {
				return out
			}
			st, done := w.steps(tx, ev)
			for _, s := range st {
				out[ev.s.id] = append(out[ev.s.id], append([]any{s.Name}, s.Stmt.Args...))
			}
			done()
		}
	}
	regular, mixed := steps(0), steps(50)
	plan := New(p).ensurePlan().WithOffline(50)
	offline, statements := 0, 0
	for i := 0; i < p.Logins; i++ {
		id := plan.sessionID(i)
		if !plan.isOffline(i) {
			if !slices.EqualFunc(regular[id], mixed[id], slices.Equal) {
				t.Fatalf("regular session %d: its statements changed with offline sessions beside it", i)
			}
			continue
		}
		offline++
		for _, st := range mixed[id] {
			statements++
			if f := flagArgs(st); len(f) != 1 || f[0] != offlineFlag {
				t.Fatalf("offline session %d: %v binds OFFLINE_FLAG %v, want '1' once", i, st[0], f)
			}
		}
	}
	if offline != 100 || statements == 0 {
		t.Fatalf("%d offline sessions, %d statements", offline, statements)
	}
	for id, sts := range regular {
		for _, st := range sts {
			if f := flagArgs(st); len(f) != 1 || f[0] != regularFlag {
				t.Fatalf("session %s without --offline-percent: %v binds %v", id, st[0], f)
			}
		}
	}
}

// crossingsPerSession counts by hand, from the schedule's times alone, the
// coarse values each session's written seconds take, minus one, with the
// session's own granularity.
func crossingsPerSession(p Params, plan *Plan) int64 {
	arrival := int64(1000 / p.UsersPerSecond)
	var n int64
	for i := 0; i < p.Logins; i++ {
		g := Granularity(int64(p.MaxIdle.Seconds()))
		if plan.isOffline(i) {
			g = Granularity(int64(p.OfflineMaxIdle.Seconds()))
		}
		at := int64(i) * arrival
		created := Epoch + at/1000
		last, seen := created, map[int64]bool{Coarse(created, created, g): true}
		for k := 0; k < p.RefreshesPerLogin; k++ {
			if sec := Epoch + (at+p.FirstRefreshAfter.Milliseconds()+int64(k)*p.RefreshPeriod.Milliseconds())/1000; sec > last {
				last = sec
				seen[Coarse(sec, created, g)] = true
			}
		}
		n += int64(len(seen) - 1)
	}
	return n
}

// Offline sessions cross their own (finer, here) boundaries: the schedule,
// the statements the coarse variant issues and the run's figure all agree
// with the count made by hand.
func TestCrossingsUseEachSessionsGranularity(t *testing.T) {
	t.Parallel()
	p := DefaultParams()
	p.Logins, p.RefreshesPerLogin, p.RefreshPeriod, p.OfflinePercent, p.OfflineMaxIdle = 200, 40, 20*time.Second, 50, 2*time.Minute
	w := New(p)
	w.variant = "coarse"
	plan := w.ensurePlan()
	want := crossingsPerSession(p, plan)
	got, _ := plan.Crossings(Granularity(int64(p.MaxIdle.Seconds())), p.granularity(true))
	p0 := p
	p0.OfflinePercent = 0
	without := crossingsPerSession(p0, New(p0).ensurePlan())
	if got != want || want <= without {
		t.Fatalf("schedule %d crossings, by hand %d (without offline sessions %d)", got, want, without)
	}
	counts, _ := drive(t, p, "coarse")
	if int64(counts["rt_update_user_session_coarse"]) != want {
		t.Errorf("the coarse variant updates LAST_SESSION_REFRESH_COARSE %d times, by hand %d", counts["rt_update_user_session_coarse"], want)
	}
	run := &result.Run{Variant: "coarse", Database: map[string]result.Metric{}, Operations: map[string]int64{"refreshes": int64(p.Logins * p.RefreshesPerLogin)}}
	w.AmendRun(run, workloads.Stats{Statements: map[string]int64{"rt_update_user_session_coarse": want}})
	if m := run.Database[result.CoarseBoundaryCrossings.Name]; m.V() != float64(want) || !strings.Contains(m.Source, "offline sessions' 60 s") {
		t.Errorf("coarse_boundary_crossings %v (%s), want %d", m.V(), m.Source, want)
	}
	if m, ok := run.Database[result.OfflineSessions.Name]; !ok || m.V() != 100 || m.Exactness != result.Exact {
		t.Errorf("offline_sessions %+v, want 100, exact", m)
	}
	if len(run.Warnings) > 0 {
		t.Errorf("warnings: %v", run.Warnings)
	}
	// A default run carries no offline figure.
	w0 := New(p0)
	w0.variant = "coarse"
	run0 := &result.Run{Database: map[string]result.Metric{}, Operations: map[string]int64{}}
	w0.AmendRun(run0, workloads.Stats{})
	if _, ok := run0.Database[result.OfflineSessions.Name]; ok {
		t.Error("a run without offline sessions reports offline_sessions")
	}
}

func TestOfflineParamsValidateNamesTheFlag(t *testing.T) {
	t.Parallel()
	for flag, f := range map[string]func(*Params){
		"--offline-percent":  func(p *Params) { p.OfflinePercent = 101 },
		"--offline-max-idle": func(p *Params) { p.OfflineMaxIdle = 0 },
	} {
		p := DefaultParams()
		f(&p)
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), flag) {
			t.Errorf("%s: %v", flag, err)
		}
	}
	p := DefaultParams()
	p.OfflinePercent, p.OfflineMaxIdle, p.RefreshPeriod = 10, time.Minute, time.Minute
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "--offline-max-idle") {
		t.Errorf("an offline idle timeout no longer than the refresh period: %v", err)
	}
	p = DefaultParams()
	p.OfflinePercent = math.NaN()
	if err := checkLimits(p); err == nil || !strings.Contains(err.Error(), "--offline-percent") {
		t.Errorf("NaN: %v", err)
	}
	p = DefaultParams()
	p.OfflinePercent, p.OfflineMaxIdle = 1, 20*365*24*time.Hour
	if err := checkLimits(p); err == nil || !strings.Contains(err.Error(), "--offline-max-idle") {
		t.Errorf("a job past 2038: %v", err)
	}
	if DefaultParams().OfflineMaxIdle != 2592000*time.Second {
		t.Error("the default offline idle timeout is Keycloak's realm default, 2592000 s")
	}
	w := New(DefaultParams())
	if m := w.Meta(); m.Params["offline_percent"] != nil || len(m.Assumptions) != len(DefaultParams().Assumptions()) {
		t.Error("a default run lists offline parameters")
	}
	q := DefaultParams()
	q.OfflinePercent = 25
	m := New(q).Meta()
	if m.Params["offline_percent"] != 25.0 || m.Params["offline_coarse_granularity_seconds"] != int64(1296000) {
		t.Errorf("params %v", m.Params)
	}
	if !slices.ContainsFunc(m.Assumptions, func(a string) bool { return strings.Contains(a, "--offline-max-idle") }) {
		t.Errorf("no assumption names --offline-max-idle: %v", m.Assumptions)
	}
}

// The offline pass's find is the regular one with OFFLINE_FLAG '1', and its
// deletes bind '1'.
func TestOfflineBatchBindsItsFlag(t *testing.T) {
	t.Parallel()
	for _, d := range []string{"postgres", "mysql", "sqlserver", "oracle"} {
		t0 := texts{}
		for _, n := range ExpireStatementNames {
			s, err := queries.Get(d, n, 0)
			if err != nil {
				t.Fatal(err)
			}
			t0[n] = Render(s, "s", DefaultParams())
		}
		if err := offlineFinds(t0); err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		b := jobBatch{find: "rt_expire_find_last_refresh", flag: offlineFlag, ids: []sid{{1}, {2}}, args: []any{realmID, false, 1, 512}}
		steps := batchSteps(t0, d, b)
		if !strings.Contains(steps[0].Stmt.SQL, "offline_flag = '1'") || strings.Contains(steps[0].Stmt.SQL, "offline_flag = '0'") {
			t.Errorf("%s: the offline find is %s", d, steps[0].Stmt.SQL)
		}
		for _, st := range steps[1:] {
			_, args, _ := st.Stmt.Late()
			if f := flagArgs(args); !slices.Equal(f, []string{offlineFlag}) {
				t.Errorf("%s: %s binds %v", d, st.Name, f)
			}
		}
	}
}
