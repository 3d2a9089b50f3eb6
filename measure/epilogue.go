package measure

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/result"
	"github.com/writeamp/writeamp/workloads"
)

// epilogue measures a workload's Epilogue (the refresh-token expiration job)
// in a window of its own after the variant's: one worker runs its
// operations, and the window's figures join the run under the epilogue's
// prefix, with what the workload counted itself (Finish). An error is the
// epilogue's own failure; the variant's window stands.
func (e *Experiment) epilogue(ctx context.Context, run *result.Run, sc collectors.Scope) error {
	epw, ok := e.Workload.(workloads.Epiloguer)
	if !ok {
		return nil
	}
	ep, err := epw.Epilogue()
	if err != nil || ep == nil {
		return err
	}
	win := e.Window
	obs := win.Observers
	win.Observers = nil
	defer func() { win.Observers = obs }()
	span, err := win.Begin(ctx, sc)
	if err != nil {
		return err
	}
	span.Label = "variant " + run.Variant + ", " + ep.Prefix + "window"
	runner := workloads.Runner{Target: win.Target, Concurrency: 1, NoPipeline: e.NoPipeline}
	st, runErr := runner.Run(ctx, ep.Ops)
	wr := writes(e.Workload, st, sc)
	delta, err := span.End(ctx, AwaitRows(wr, 10*time.Second))
	if runErr != nil {
		return runErr
	}
	if err != nil {
		return err
	}
	for k, m := range delta.Values {
		if name, ok := ep.Metrics[k.Metric]; ok {
			m.Source = ep.Prefix + "window: " + m.Source
			putMetric(run, k.Level, k.Object, name, m)
		}
	}
	// The job's total rows are held to what its statements changed, and
	// summed from the tables where the server has no database-wide count.
	for name, m := range epilogueRows(delta, wr, ep.Metrics, ep.Prefix) {
		run.Database[name] = m
	}
	for _, m := range delta.Missing {
		// What the run's own window already lacks, the run says once.
		if slices.ContainsFunc(run.Missing, func(r result.Missing) bool { return r.Collector == m.Collector }) {
			continue
		}
		run.Warnings = append(run.Warnings, fmt.Sprintf("%swindow: %s gave nothing: %s", ep.Prefix, m.Collector, m.Reason))
	}
	for _, w := range append(span.Warnings, delta.WarningTexts()...) {
		run.Warnings = append(run.Warnings, ep.Prefix+"window: "+w)
	}
	if ep.Finish != nil {
		ep.Finish(run, st)
	}
	run.Sort()
	run.PerOperation = PerOperation(run)
	return nil
}
