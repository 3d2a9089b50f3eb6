package refreshtoken

import (
	"strings"
	"testing"
)

// Each warm-up round has sessions of its own on the same simulated span,
// round 0 is the fixed --warmup's, and the table's model counts every
// round that ran (the expiration job deletes them all).
func TestWarmupRoundsAddSessionsOfTheirOwn(t *testing.T) {
	t.Parallel()
	p := DefaultParams()
	p.Logins, p.Warmup, p.WarmupUntilStable = 20, 30, true
	w := New(p)
	if n, tol := w.WarmupRounds(); n != MaxWarmupRounds || tol != WarmupTolerance {
		t.Fatalf("WarmupRounds %d %v", n, tol)
	}
	once := w.warmupLive() // before any round is recorded: the one Placement runs
	if len(once) == 0 {
		t.Fatal("the warm-up leaves no session in the table")
	}
	w.WarmedUp(3)
	three := w.warmupLive()
	if len(three) != 3*len(once) {
		t.Fatalf("3 rounds leave %d sessions, one round %d", len(three), len(once))
	}
	ids := map[sid]bool{}
	for _, s := range three {
		if ids[s.id] {
			t.Fatalf("session %s in two rounds", s.id)
		}
		ids[s.id] = true
	}
	r0, r2 := w.warmupPlan(0), w.warmupPlan(2)
	if r0.OffsetMS != r2.OffsetMS || r0.sessionID(0) == r2.sessionID(0) {
		t.Errorf("rounds 0 and 2: offsets %d %d, first ids %s %s", r0.OffsetMS, r2.OffsetMS, r0.sessionID(0), r2.sessionID(0))
	}
	// Off, or without --warmup: no rounds, and the flag names what it needs.
	p.WarmupUntilStable = false
	if n, _ := New(p).WarmupRounds(); n != 0 {
		t.Errorf("without --warmup-until-stable: %d rounds", n)
	}
	p.WarmupUntilStable, p.Warmup = true, 0
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "--warmup-until-stable needs --warmup N") {
		t.Errorf("Validate: %v", err)
	}
}
