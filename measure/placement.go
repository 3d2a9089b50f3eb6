package measure

import (
	"context"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/workloads"
)

// place puts the variant's window where the workload asks
// (workloads.WindowPlacer): "steady" checkpoints now, runs the warm-up and
// opens the window without a CHECKPOINT; "none" runs the warm-up and opens
// it without one; "before" (and workloads that do not choose) runs the
// warm-up and lets the window CHECKPOINT as always. A workload whose warm-up
// repeats (workloads.RoundWarmer) runs rounds until the log rate settles.
// The returned func undoes what it set on the window's server; the warm-up
// is what the rounds did, for the run.
func (e *Experiment) place(ctx context.Context, v string, sc collectors.Scope) (func(), *warmup, error) {
	pl, ok := e.Workload.(workloads.WindowPlacer)
	if !ok {
		return func() {}, nil, nil
	}
	cp, warm, err := pl.Placement()
	if err != nil {
		return func() {}, nil, err
	}
	win := e.Window
	if cp == "steady" {
		for _, w := range dialects.BeforeMeasure(ctx, win.Dialect, win.DB, win.Server, sc.Schemas) {
			e.logf("variant %s: before the warm-up: %s", v, w)
		}
	}
	var wu *warmup
	if warm != nil {
		e.logf("variant %s: warming up outside the window", v)
		if rw, ok := e.Workload.(workloads.RoundWarmer); ok {
			if rounds, tol := rw.WarmupRounds(); rounds > 0 {
				if wu, err = e.warmUntilStable(ctx, v, rw, warm, rounds, tol); err != nil {
					return func() {}, nil, err
				}
			}
		}
		if wu == nil {
			if _, err := e.runWarm(ctx, warm); err != nil {
				return func() {}, nil, err
			}
		}
	}
	if cp == "before" || cp == "" {
		return func() {}, wu, nil
	}
	prev := win.Server.Prop(dialects.PropNoCheckpoint)
	win.Server.SetProp(dialects.PropNoCheckpoint, "--checkpoint "+cp)
	return func() { win.Server.SetProp(dialects.PropNoCheckpoint, prev) }, wu, nil
}

func sumErrors(st workloads.Stats) int64 {
	var n int64
	for _, v := range st.Errors {
		n += v
	}
	return n
}
