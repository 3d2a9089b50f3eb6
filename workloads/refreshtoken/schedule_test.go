package refreshtoken

import (
	"strings"
	"testing"
	"time"
)

func TestPlanCountsAndOrder(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ workers, first int }{{1, 0}, {3, 0}, {8, 0}, {3, 700}} {
		workers := c.workers
		p := NewPlan(1500, 10, 2000, 200, 10, 7)
		p.FirstMS = int64(c.first)
		if p.Logouts() != 150 {
			t.Fatalf("logouts = %d, want exactly 10%% of 1500", p.Logouts())
		}
		counts := map[opKind]int{}
		lastAt := map[string]int64{}
		refreshes := map[string]int{}
		loggedOut := map[string]bool{}
		for w := 0; w < workers; w++ {
			c := p.cursor(w, workers)
			prev := int64(-1)
			for {
				ev, ok := c.next()
				if !ok {
					break
				}
				counts[ev.kind]++
				if ev.at < prev {
					t.Fatalf("worker %d went back in simulated time: %d after %d", w, ev.at, prev)
				}
				prev = ev.at
				id := ev.s.id
				switch ev.kind {
				case opLogin:
					if _, dup := lastAt[id]; dup {
						t.Fatalf("session %s logged in twice", id)
					}
				case opRefresh:
					// keycloak-benchmark: exchangeCode, then repeat { refreshToken; pause }.
					want := int64(2000)
					if refreshes[id] == 0 {
						want = p.FirstMS
					}
					refreshes[id]++
					if ev.at-lastAt[id] != want {
						t.Fatalf("refresh %d: %d ms after the previous event, want %d", refreshes[id], ev.at-lastAt[id], want)
					}
				case opLogout:
					if refreshes[id] != 10 || ev.at-lastAt[id] != 2000 {
						t.Fatalf("logout after %d refreshes, %d ms after the last (the loop pauses after each refresh)", refreshes[id], ev.at-lastAt[id])
					}
					loggedOut[id] = true
				}
				if ev.kind != opLogin && loggedOut[id] && ev.kind != opLogout {
					t.Fatal("event after logout")
				}
				lastAt[id] = ev.at
			}
		}
		if counts[opLogin] != 1500 || counts[opRefresh] != 15000 || counts[opLogout] != 150 {
			t.Errorf("workers=%d: %v", workers, counts)
		}
		if int64(counts[opLogin]+counts[opRefresh]+counts[opLogout]) != p.Total() {
			t.Error("Total disagrees with the events")
		}
	}
}

func TestPlanIsRepeatableBySeed(t *testing.T) {
	t.Parallel()
	a, b, c := NewPlan(100, 1, 1000, 100, 30, 42), NewPlan(100, 1, 1000, 100, 30, 42), NewPlan(100, 1, 1000, 100, 30, 43)
	same := true
	for i := 0; i < 100; i++ {
		if a.sessionID(i) != b.sessionID(i) || a.logouts[i] != b.logouts[i] {
			t.Fatal("the same seed must give the same sessions and logouts")
		}
		same = same && a.sessionID(i) == c.sessionID(i)
	}
	if same {
		t.Error("another seed must give other session ids")
	}
	if len(a.sessionID(5)) != 36 {
		t.Errorf("session id %q is not UUID-shaped (VARCHAR(36))", a.sessionID(5))
	}
}

func TestCursorMemoryIsBoundedByActiveSessions(t *testing.T) {
	t.Parallel()
	// 100k logins at 5/s with 10 refreshes 2 s apart: about 100 sessions are
	// active at a time, so the cursor never holds more than a few hundred.
	p := NewPlan(100000, 10, 2000, 200, 10, 1)
	c := p.cursor(0, 1)
	peak := 0
	for {
		if _, ok := c.next(); !ok {
			break
		}
		if len(c.active) > peak {
			peak = len(c.active)
		}
	}
	if peak > 200 {
		t.Errorf("peak active sessions %d: the schedule must not hold the whole plan", peak)
	}
}

func TestParamsValidateNamesTheFlag(t *testing.T) {
	t.Parallel()
	p := DefaultParams()
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := []func(*Params){
		func(p *Params) { p.Logins = 0 },
		func(p *Params) { p.LogoutPercent = 101 },
		func(p *Params) { p.Buckets = 40000 },
		func(p *Params) { p.FillFactor = 5 },
		func(p *Params) { p.RefreshPeriod = 0 },
		func(p *Params) { p.FirstRefreshAfter = -time.Second },
		func(p *Params) { p.BucketFunction = "md5" },
		func(p *Params) { p.BucketPosition = "last" },
		func(p *Params) { p.CSSUserSessionIndex = "maybe" },
	}
	flags := []string{"--logins", "--logout-percent", "--buckets", "--fillfactor", "--refresh-period",
		"--first-refresh-after", "--bucket-function", "--bucket-position", "--css-user-session-index"}
	for i, f := range bad {
		q := DefaultParams()
		f(&q)
		err := q.Validate()
		if err == nil || !strings.Contains(err.Error(), flags[i]) {
			t.Errorf("case %d: error %v does not name %s", i, err, flags[i])
		}
	}
}
