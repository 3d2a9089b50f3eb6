// Package measure runs one experiment: for each variant it prepares the
// workload, settles the server, snapshots, runs, settles, snapshots again,
// diffs, and turns the difference into a result.Run. Cleanup runs on
// success, error and interrupt alike.
package measure

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/reports"
	"github.com/writeamp/writeamp/result"
	"github.com/writeamp/writeamp/workloads"
)

// Version is the tool version written into results (set by the linker).
var Version = "dev"

// Experiment is a built-in workload measured over one or more variants.
type Experiment struct {
	DB       *sql.DB
	Server   dialects.Server
	Workload workloads.Workload
	Variants []string
	Keep     bool // leave the workload's objects for inspection
	// Progress returns the progress sink for a variant (nil: none).
	Progress func(variant string, total int64) (workloads.Progress, func())
	Log      io.Writer // notes as they happen (stderr); nil discards
	// CleanupTimeout bounds cleanup after an interrupt.
	CleanupTimeout time.Duration
}

func (e *Experiment) logf(format string, a ...any) {
	if e.Log != nil {
		fmt.Fprintf(e.Log, format+"\n", a...)
	}
}

// PhaseError names the phase a measurement failed in.
type PhaseError struct {
	Variant, Phase string
	Err            error
}

func (e *PhaseError) Error() string {
	return fmt.Sprintf("variant %s, %s: %v", e.Variant, e.Phase, e.Err)
}
func (e *PhaseError) Unwrap() error { return e.Err }

// Run measures every variant. On error it returns the runs measured so far
// (the result is marked partial) together with the error.
func (e *Experiment) Run(ctx context.Context) (*result.Result, error) {
	d, ok := dialects.Get(e.Server.Dialect)
	if !ok {
		return nil, fmt.Errorf("no dialect %q", e.Server.Dialect)
	}
	set, err := collectors.For(e.Server.Dialect)
	if err != nil {
		return nil, err
	}
	meta := e.Workload.Meta()
	res := NewResult(e.Server)
	res.Workload = result.Workload{Name: meta.Name, Params: meta.Params, Assumptions: meta.Assumptions}
	if e.CleanupTimeout == 0 {
		e.CleanupTimeout = 30 * time.Second
	}
	cleanupCtx := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.WithoutCancel(ctx), e.CleanupTimeout)
	}

	keeper, _ := e.Workload.(workloads.Keeper)
	if e.Keep && keeper != nil {
		keeper.KeepObjects()
	}
	if lc, ok := e.Workload.(workloads.LeftoverCleaner); ok {
		dropped, kept, err := lc.CleanLeftovers(ctx, e.DB, e.Server)
		if err != nil {
			return nil, fmt.Errorf("clean leftovers of earlier runs: %w", err)
		}
		for _, s := range dropped {
			res.Notes = append(res.Notes, "dropped "+s+", left by an earlier writeamp run that did not finish (its lock was free)")
			e.logf("dropped %s, left by an earlier writeamp run that did not finish (its lock was free)", s)
		}
		for _, s := range kept {
			e.logf("note: left alone: %s", s)
		}
	}

	server := e.Server
	notes, undo := instrument(ctx, e.DB, &server, e.CleanupTimeout, e.Log, true)
	res.Notes = append(res.Notes, notes...)
	defer undo()
	var runErr error

	for _, v := range e.Variants {
		run, err := e.variant(ctx, d, set, server, v, cleanupCtx)
		if run != nil {
			res.Runs = append(res.Runs, *run)
		}
		if err != nil {
			runErr = err
			break
		}
	}
	if runErr != nil {
		res.Notes = append(res.Notes, "partial result: "+runErr.Error())
	}
	return res, runErr
}

// NewResult starts a result document for a server.
func NewResult(s dialects.Server) *result.Result {
	return &result.Result{
		SchemaVersion: result.SchemaVersion,
		Tool:          result.Tool{Name: "writeamp", Version: Version},
		Server:        result.Server{Dialect: s.Dialect, Version: s.Version, Flavor: s.Flavor, Name: s.String()},
		CreatedAt:     time.Now().UTC().Format(time.RFC3339),
	}
}

func (e *Experiment) variant(ctx context.Context, d dialects.Dialect, set *collectors.Set, s dialects.Server, v string,
	cleanupCtx func() (context.Context, context.CancelFunc)) (run *result.Run, err error) {
	w := e.Workload
	phase := func(p string, err error) error {
		if err == nil {
			return nil
		}
		if errors.Is(err, context.Canceled) {
			err = fmt.Errorf("interrupted: %w", err)
		}
		return &PhaseError{Variant: v, Phase: p, Err: err}
	}
	// Phase timings go to the log: where the time of a run goes is the first
	// question when a run is slower than the workload alone.
	t0 := time.Now()
	since := func() string {
		d := time.Since(t0).Round(time.Millisecond)
		t0 = time.Now()
		return d.String()
	}
	e.logf("variant %s: preparing", v)
	if err := w.Prepare(ctx, e.DB, s, v); err != nil {
		return nil, phase("prepare", err)
	}
	e.logf("variant %s: prepared in %s", v, since())
	defer func() {
		if e.Keep {
			e.logf("variant %s: kept the workload's objects (%v) for inspection (--keep); writeamp clean lists them, clean --drop removes them", v, w.Scope().Schemas)
			if _, ok := w.(workloads.Keeper); !ok {
				return
			}
		}
		cctx, cancel := cleanupCtx()
		defer cancel()
		if cerr := w.Cleanup(cctx, e.DB); cerr != nil {
			err = errors.Join(err, phase("cleanup", cerr))
		}
	}()
	sc := w.Scope()
	var warnings []string
	settler, _ := d.(dialects.Settler)
	if settler != nil {
		warnings = append(warnings, dialects.BeforeMeasure(ctx, settler, e.DB, s, sc.Schemas)...)
	}
	before, err := set.Take(ctx, e.DB, s, sc)
	if err != nil {
		return nil, phase("snapshot before", err)
	}
	e.logf("variant %s: settled and took the before snapshot in %s", v, since())
	var prog workloads.Progress = workloads.NoProgress{}
	done := func() {}
	if e.Progress != nil {
		prog, done = e.Progress(v, w.TotalOperations())
	}
	e.logf("variant %s: running %d operations", v, w.TotalOperations())
	stats, runErr := w.Run(ctx, e.DB, s, prog)
	done()
	e.logf("variant %s: workload ran in %s", v, since())
	if runErr != nil && ctx.Err() != nil {
		return nil, phase("workload", runErr)
	}
	if settler != nil {
		warnings = append(warnings, settler.Settle(ctx, e.DB, s, sc.Schemas)...)
	}
	wr := writes(w, stats, sc)
	_, delta, err := awaitWrites(ctx, set, e.DB, s, sc, before, wr, 10*time.Second)
	if err != nil {
		// The server went away (killed, restarted, the connection lost): no
		// counters, but what the driver counted is still a partial result.
		run = unmeasured(v, stats, w.Meta().MainOperation, err)
		run.Warnings = append(warnings, run.Warnings...)
		if runErr != nil {
			// The workload's failure is the cause; the snapshot failing
			// after it is the consequence.
			return run, phase("workload", fmt.Errorf("%w (the after snapshot failed too: %v)", runErr, err))
		}
		return run, phase("snapshot after", err)
	}
	delta.Writes = wr
	crossCheckWrites(delta, wr)
	e.logf("variant %s: settled and took the after snapshot in %s", v, since())
	set.RunInterval(ctx, e.DB, delta)
	e.logf("variant %s: read the log of the window in %s", v, since())
	run = BuildRun(v, delta, stats, w.Meta().MainOperation)
	run.Writes = wr
	run.Warnings = append(warnings, run.Warnings...)
	if runErr != nil {
		run.Partial = true
		run.Warnings = append(run.Warnings, "the workload stopped early: "+runErr.Error())
		return run, phase("workload", runErr)
	}
	return run, nil
}

// unmeasured is the partial run of a window whose after snapshot could not
// be taken: the operations and latencies the driver counted, every server
// number missing with the reason.
func unmeasured(variant string, st workloads.Stats, main string, cause error) *result.Run {
	why := "the server could not be read after the workload, so no counter of the window is known: " + cause.Error()
	run := BuildRun(variant, &collectors.Delta{Values: map[collectors.Key]result.Metric{},
		Missing: []result.Missing{{Collector: "all", Reason: why}}}, st, main)
	run.Partial = true
	run.Warnings = append(run.Warnings, why)
	return run
}

// writes turns the workload's per-statement row counts into Delta.Writes.
func writes(w workloads.Workload, st workloads.Stats, sc collectors.Scope) []collectors.Write {
	ed, ok := w.(workloads.EffectDescriber)
	if !ok {
		return nil
	}
	schema := ""
	if len(sc.Schemas) > 0 {
		schema = sc.Schemas[0]
	}
	var out []collectors.Write
	for name, eff := range ed.Effects() {
		if rows, ok := st.Statements[name]; ok {
			out = append(out, collectors.Write{Statement: name, Schema: schema, Table: eff.Table, Kind: eff.Kind, Columns: eff.Columns, Rows: rows})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Statement < out[j].Statement })
	return out
}

// BuildRun turns a diffed window and the driver's counts into one run.
func BuildRun(variant string, d *collectors.Delta, st workloads.Stats, main string) *result.Run {
	run := &result.Run{
		Variant:        variant,
		Operations:     map[string]int64{},
		MainOperation:  main,
		ElapsedSeconds: st.Elapsed.Seconds(),
		Database:       map[string]result.Metric{},
		Missing:        d.Missing,
		Warnings:       append([]string{}, d.Warnings...),
	}
	for k, v := range st.Operations {
		run.Operations[k] = v
	}
	var total int64
	for _, v := range st.Operations {
		total += v
	}
	if st.Elapsed > 0 {
		run.Throughput = float64(total) / st.Elapsed.Seconds()
	}
	if len(st.Errors) > 0 {
		run.Errors = map[string]int64{}
		for k, v := range st.Errors {
			if v > 0 {
				run.Errors[k] = v
			}
		}
	}
	if st.Retries > 0 {
		run.Warnings = append(run.Warnings, fmt.Sprintf("%d operations were retried after a serialization failure or deadlock", st.Retries))
	}
	if len(st.Latency) > 0 {
		run.LatencyMS = map[string]result.Latency{}
		for k, h := range st.Latency {
			if h.Count() > 0 {
				run.LatencyMS[k] = h.Summary()
			}
		}
	}
	if d.Before != nil && d.After != nil {
		run.Window = &result.Window{Start: d.Before.TakenAt.Format(time.RFC3339Nano), End: d.After.TakenAt.Format(time.RFC3339Nano), Marks: map[string]string{}}
		for k, v := range d.Before.Marks {
			run.Window.Marks[k+"_before"] = v
		}
		for k, v := range d.After.Marks {
			run.Window.Marks[k+"_after"] = v
		}
	}
	tables := map[string]*result.Object{}
	indexes := map[string]*result.Object{}
	for _, o := range d.Objects {
		ro := &result.Object{Name: o.Name, Schema: o.Schema, Metrics: map[string]result.Metric{}}
		info := map[string]string{}
		for k, v := range o.Info {
			switch k {
			case "oid", "toast_filenodes":
			default:
				info[k] = v
			}
		}
		if len(info) > 0 {
			ro.Info = info
		}
		if o.Level == collectors.Index {
			ro.Table = o.Table
			indexes[o.FQN()] = ro
		} else {
			tables[o.FQN()] = ro
		}
	}
	for k, m := range d.Values {
		switch k.Level {
		case collectors.DB:
			run.Database[k.Metric] = m
		case collectors.Table:
			t := tables[k.Object]
			if t == nil {
				schema, name := splitFQN(k.Object)
				t = &result.Object{Name: name, Schema: schema, Metrics: map[string]result.Metric{}}
				tables[k.Object] = t
			}
			t.Metrics[k.Metric] = m
		case collectors.Index:
			ix := indexes[k.Object]
			if ix == nil {
				schema, name := splitFQN(k.Object)
				ix = &result.Object{Name: name, Schema: schema, Metrics: map[string]result.Metric{}}
				indexes[k.Object] = ix
			}
			ix.Metrics[k.Metric] = m
		}
	}
	for _, t := range tables {
		run.Tables = append(run.Tables, *t)
	}
	for _, ix := range indexes {
		run.Indexes = append(run.Indexes, *ix)
	}
	run.Sort()
	workloadWarnings(run)
	run.PerOperation = PerOperation(run)
	return run
}

// workloadWarnings flags other activity inside the window that the numbers include.
func workloadWarnings(run *result.Run) {
	other, total := run.Database["log_bytes_other_objects"], run.Database["log_bytes"]
	if other.OK() && total.OK() && other.V() > 0.01*total.V() {
		where := "other tables, databases or sessions"
		if other.Note != "" {
			where = other.Note
		}
		run.Warnings = append(run.Warnings, fmt.Sprintf("%.0f%% of the log in the window was written to objects outside the measured scope (%s); see log_bytes_other_objects", 100*other.V()/total.V(), where))
	}
}

// PerOperation normalizes the database metrics by each operation count.
func PerOperation(run *result.Run) map[string]map[string]float64 {
	out := map[string]map[string]float64{}
	for op, n := range run.Operations {
		if n <= 0 {
			continue
		}
		m := map[string]float64{}
		for name, v := range run.Database {
			if v.OK() {
				m[name] = v.V() / float64(n)
			}
		}
		out[reports.Singular(op)] = m
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func splitFQN(s string) (string, string) {
	if i := strings.LastIndex(s, "."); i >= 0 {
		return s[:i], s[i+1:]
	}
	return "", s
}
