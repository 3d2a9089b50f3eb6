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

// warmupPlan is --warmup logins of the scenario's shape, ending on the
// simulated clock before the measured plan starts at 0.
func (w *Workload) warmupPlan() *Plan {
	if w.P.Warmup == 0 {
		return nil
	}
	p := w.P
	arrival := int64(1000 / p.UsersPerSecond)
	wp := NewPlan(p.Warmup, p.RefreshesPerLogin, p.RefreshPeriod.Milliseconds(), arrival, p.LogoutPercent, p.Seed^warmupSeed)
	wp.FirstMS = p.FirstRefreshAfter.Milliseconds()
	span := int64(p.Warmup-1)*arrival + wp.FirstMS + int64(p.RefreshesPerLogin)*wp.PeriodMS
	wp.OffsetMS = -(span/1000 + 2) * 1000
	return wp
}

// Placement is --checkpoint and the warm-up's operations.
func (w *Workload) Placement() (string, workloads.Ops, error) {
	wp := w.warmupPlan()
	if wp == nil {
		return w.P.Checkpoint, nil, nil
	}
	ops, err := w.opsFor(wp)
	return w.P.Checkpoint, ops, err
}

// warmupLive are the warm-up's sessions still in the table when it ends.
func (w *Workload) warmupLive() []liveSession {
	wp := w.warmupPlan()
	if wp == nil {
		return nil
	}
	live, _ := wp.FinalSessions(w.P.bucket)
	return live
}
