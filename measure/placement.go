package measure

import (
	"context"
	"fmt"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/workloads"
)

// place puts the variant's window where the workload asks
// (workloads.WindowPlacer): "steady" checkpoints now, runs the warm-up and
// opens the window without a CHECKPOINT; "none" runs the warm-up and opens
// it without one; "before" (and workloads that do not choose) runs the
// warm-up and lets the window CHECKPOINT as always. The returned func undoes
// what it set on the window's server.
func (e *Experiment) place(ctx context.Context, v string, sc collectors.Scope) (func(), error) {
	pl, ok := e.Workload.(workloads.WindowPlacer)
	if !ok {
		return func() {}, nil
	}
	cp, warm, err := pl.Placement()
	if err != nil {
		return func() {}, err
	}
	win := e.Window
	if cp == "steady" {
		if st, ok := win.Dialect.(dialects.Settler); ok {
			for _, w := range dialects.BeforeMeasure(ctx, st, win.DB, win.Server, sc.Schemas) {
				e.logf("variant %s: before the warm-up: %s", v, w)
			}
		}
	}
	if warm != nil {
		e.logf("variant %s: warming up outside the window", v)
		st, err := workloads.Runner{Target: win.Target, Concurrency: e.Concurrency, NoPipeline: e.NoPipeline}.Run(ctx, warm)
		if err != nil {
			return func() {}, err
		}
		if n := sumErrors(st); n > 0 {
			return func() {}, fmt.Errorf("%d warm-up operations failed", n)
		}
	}
	if cp == "before" || cp == "" {
		return func() {}, nil
	}
	prev := win.Server.Prop(dialects.PropNoCheckpoint)
	win.Server.SetProp(dialects.PropNoCheckpoint, "--checkpoint "+cp)
	return func() { win.Server.SetProp(dialects.PropNoCheckpoint, prev) }, nil
}

func sumErrors(st workloads.Stats) int64 {
	var n int64
	for _, v := range st.Errors {
		n += v
	}
	return n
}
