package refreshtoken

import (
	"github.com/writeamp/writeamp/workloads"
)

// Where the window opens (--checkpoint, --warmup): right after a CHECKPOINT
// is the worst case for the log (every page's first change writes a
// full-page image), which is what a window measured today shows; a window
// that opens after a warm-up that followed the checkpoint ("steady") sees
// the pages the workload keeps touching already imaged, as a production
// server between checkpoints mostly does.

// The values --checkpoint takes; the first is the default.
var Checkpoints = []string{"before", "none", "steady"}

// warmupSeed gives the warm-up's sessions ids of their own.
const warmupSeed = 0x9e3779b97f4a7c15

// --warmup-until-stable: at most MaxWarmupRounds rounds; settled when two
// rounds in a row write log bytes per operation within WarmupTolerance of
// each other (relative to the larger).
const (
	MaxWarmupRounds = 20
	WarmupTolerance = 0.10
)

// warmupPlan is round r of the warm-up: --warmup logins of the scenario's
// shape, ending on the simulated clock before the measured plan starts at
// 0. Every round covers the same simulated span with sessions of its own
// (a seed per round), so the table fills as with more users logged in at
// once, and the window opens at the same simulated time however many
// rounds ran.
func (w *Workload) warmupPlan(r int) *Plan {
	if w.P.Warmup == 0 {
		return nil
	}
	p := w.P
	arrival := int64(1000 / p.UsersPerSecond)
	wp := NewPlan(p.Warmup, p.RefreshesPerLogin, p.RefreshPeriod.Milliseconds(), arrival, p.LogoutPercent, p.Seed^warmupSeed^(uint64(r)*0xbf58476d1ce4e5b9)).WithOffline(p.OfflinePercent)
	wp.FirstMS = p.FirstRefreshAfter.Milliseconds()
	span := int64(p.Warmup-1)*arrival + wp.FirstMS + int64(p.RefreshesPerLogin)*wp.PeriodMS
	wp.OffsetMS = -(span/1000 + 2) * 1000
	return wp
}

// Placement is --checkpoint and the warm-up's (first round's) operations.
func (w *Workload) Placement() (string, workloads.Ops, error) {
	w.warmRounds = 1
	wp := w.warmupPlan(0)
	if wp == nil {
		return w.P.Checkpoint, nil, nil
	}
	ops, err := w.opsFor(wp)
	return w.P.Checkpoint, ops, err
}

// WarmupRounds is --warmup-until-stable's bound and tolerance.
func (w *Workload) WarmupRounds() (int, float64) {
	if !w.P.WarmupUntilStable || w.P.Warmup == 0 {
		return 0, 0
	}
	return MaxWarmupRounds, WarmupTolerance
}

// WarmupRound is round r's operations.
func (w *Workload) WarmupRound(r int) (workloads.Ops, error) {
	return w.opsFor(w.warmupPlan(r))
}

// WarmedUp records the rounds the variant's warm-up ran.
func (w *Workload) WarmedUp(rounds int) { w.warmRounds = rounds }

// warmupLive are the warm-up's sessions still in the table when it ends,
// every round's.
func (w *Workload) warmupLive() []liveSession {
	var all []liveSession
	for r := 0; r < max(1, w.warmRounds); r++ {
		wp := w.warmupPlan(r)
		if wp == nil {
			return nil
		}
		live, _ := wp.FinalSessions(w.P.bucket)
		all = append(all, live...)
	}
	return all
}
