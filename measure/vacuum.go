package measure

import (
	"context"
	"fmt"
	"slices"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/result"
)

// Vacuum measures the cleanup of the dead rows a run's window left (run
// and measure --vacuum) in a second window of its own, after the first has
// closed: the same collectors read its WAL, full-page images and pages
// touched, and the dialect adds what its vacuum says it did. The figures
// join the run under vacuum_ names, with its warnings; autovacuum inside
// the run's window stays excluded as before (the built-in workloads'
// tables have it off; one that runs during the vacuum's window is a
// warning). An error is the vacuum's own failure: the run stands.
func (win *Window) Vacuum(ctx context.Context, run *result.Run, sc collectors.Scope) error {
	vac := win.Set.Vacuum
	if vac == nil {
		why := win.Set.NoVacuum
		if why == "" {
			why = win.Server.Dialect + " has no vacuum writeamp can run"
		}
		run.Warnings = append(run.Warnings, "--vacuum: "+why)
		return nil
	}
	// Observers watch a workload; the vacuum's window has none of them.
	obs := win.Observers
	win.Observers = nil
	defer func() { win.Observers = obs }()
	if beforeVacuum != nil {
		beforeVacuum(run.Variant, sc)
	}
	span, err := win.Begin(ctx, sc)
	if err != nil {
		return err
	}
	span.Label = "variant " + run.Variant + ", vacuum"
	var tables, indexes []collectors.Object
	for _, o := range span.Before.Objects {
		if o.Level == collectors.Index {
			indexes = append(indexes, o)
		} else {
			tables = append(tables, o)
		}
	}
	counters, warns, vacErr := vac.Vacuum(ctx, win.DB, win.Server, tables, indexes)
	delta, err := span.End(ctx, AwaitRows(nil, 0))
	if vacErr != nil {
		return vacErr
	}
	if err != nil {
		return err
	}
	for k, m := range delta.Values {
		if name, ok := vac.WindowMetric(k.Level, k.Metric); ok {
			m.Source = "vacuum window: " + m.Source
			putMetric(run, k.Level, k.Object, name, m)
		}
		if k.Metric == "autovacuum_runs" && m.V() > 0 {
			warns = append(warns, fmt.Sprintf("autovacuum ran on %s during the vacuum's window: its work is in the vacuum_ figures", k.Object))
		}
	}
	for _, c := range counters {
		m := result.New(c.Value, c.Exactness, c.Source)
		m.Note = c.Note
		putMetric(run, c.Level, c.Object, c.Metric, m)
	}
	for _, m := range delta.Missing {
		// What the run's own window already lacks, the run says once.
		if !slices.ContainsFunc(run.Missing, func(r result.Missing) bool { return r.Collector == m.Collector }) {
			warns = append(warns, fmt.Sprintf("%s gave nothing in the vacuum's window: %s", m.Collector, m.Reason))
		}
	}
	for _, w := range span.Warnings {
		// The vacuum's own window after its CHECKPOINT: its full-page
		// images are in vacuum_fpi_bytes, not a disturbance.
		if w != dialects.AfterCheckpoint {
			warns = append(warns, w)
		}
	}
	for _, w := range delta.Warnings {
		// The window's own VACUUM is what it measures, not a disturbance.
		if w.Kind != collectors.WarnMaintenance || w.Cause != result.VacuumRuns.Name {
			warns = append(warns, w.Text)
		}
	}
	for _, w := range warns {
		run.Warnings = append(run.Warnings, "vacuum: "+w)
	}
	if run.Window != nil && delta.Before != nil && delta.After != nil {
		for k, v := range delta.Before.Marks {
			run.Window.Marks["vacuum_"+k+"_before"] = v
		}
		for k, v := range delta.After.Marks {
			run.Window.Marks["vacuum_"+k+"_after"] = v
		}
	}
	run.Sort()
	run.PerOperation = PerOperation(run)
	return nil
}

// beforeVacuum, when set (tests), is called between a variant's window and
// its vacuum's: the one moment the dead rows are there to be counted.
var beforeVacuum func(variant string, sc collectors.Scope)

// putMetric adds one metric to a run's database, table or index.
func putMetric(run *result.Run, level collectors.Level, obj, name string, m result.Metric) {
	if level == collectors.DB {
		run.Database[name] = m
		return
	}
	schema, n := splitFQN(obj)
	objs := &run.Tables
	if level == collectors.Index {
		objs = &run.Indexes
	}
	for i := range *objs {
		if o := &(*objs)[i]; o.Name == n && (o.Schema == schema || o.Schema == "") {
			if o.Metrics == nil {
				o.Metrics = map[string]result.Metric{}
			}
			o.Metrics[name] = m
			return
		}
	}
	*objs = append(*objs, result.Object{Name: n, Schema: schema, Metrics: map[string]result.Metric{name: m}})
}
