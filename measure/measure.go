package measure

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/result"
	"github.com/writeamp/writeamp/workloads"
)

// Experiment is a built-in workload measured over one or more variants in
// one Window: the runner (workloads.Runner) drives the workload's operations
// with Concurrency workers.
type Experiment struct {
	Window   *Window
	Workload workloads.Workload
	Variants []string
	Keep     bool // leave the workload's objects for inspection
	// Concurrency is the number of workers (1 when 0); NoPipeline makes
	// them wait for each statement.
	Concurrency int
	NoPipeline  bool
	// Vacuum measures, after each variant's window, the cleanup of the
	// dead rows it left in a window of its own (vacuum.go).
	Vacuum bool
	// Progress returns the progress sink for a variant (nil: none).
	Progress func(variant string, total int64) (workloads.Progress, func())
	// CleanupTimeout bounds cleanup after an interrupt.
	CleanupTimeout time.Duration
	// Nodes are the other copies measured in each variant's window
	// (nodes.go): their runs follow the variant's, named variant@node.
	Nodes []*Node

	nodeRuns  []result.Run // the nodes' runs of the variant just measured
	nodeNotes []string
}

// endNodes adds the nodes' runs of variant v after its own, named v@node,
// and the cluster's log note.
func (e *Experiment) endNodes(_ context.Context, v string, _ *result.Run, res *result.Result) error {
	for _, r := range e.nodeRuns {
		r.Variant = v + "@" + r.Variant
		r.Label = r.Variant
		res.Runs = append(res.Runs, r)
	}
	for _, n := range e.nodeNotes {
		res.Notes = append(res.Notes, v+": "+n)
	}
	e.nodeRuns, e.nodeNotes = nil, nil
	return nil
}

func (e *Experiment) logf(format string, a ...any) { e.Window.logf(format, a...) }

// PhaseError names the phase a measurement failed in (and the variant, in
// an Experiment).
type PhaseError struct {
	Variant, Phase string
	Err            error
}

func (e *PhaseError) Error() string {
	if e.Variant == "" {
		return fmt.Sprintf("%s: %v", e.Phase, e.Err)
	}
	return fmt.Sprintf("variant %s, %s: %v", e.Variant, e.Phase, e.Err)
}
func (e *PhaseError) Unwrap() error { return e.Err }

// Run measures every variant. On error it returns the runs measured so far
// (the result is marked partial) together with the error.
func (e *Experiment) Run(ctx context.Context) (*result.Result, error) {
	win := e.Window
	if e.Concurrency < 1 {
		e.Concurrency = 1
	}
	meta := e.Workload.Meta()
	res := NewResult(win.Server, win.Version)
	params := map[string]any{"concurrency": e.Concurrency}
	for k, v := range meta.Params {
		params[k] = v
	}
	res.Workload = result.Workload{Name: meta.Name, Params: params, Assumptions: meta.Assumptions}
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
		dropped, kept, err := lc.CleanLeftovers(ctx, win.Target)
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

	res.Notes = append(res.Notes, win.Instrument(ctx, true)...)
	defer win.Restore(ctx, e.CleanupTimeout)
	var runErr error
	for _, v := range e.Variants {
		run, err := e.variant(ctx, v, cleanupCtx, res)
		if run != nil {
			res.Runs = append(res.Runs, *run)
			err = errors.Join(err, e.endNodes(ctx, v, run, res))
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

// NewResult starts a result document for a server, made by writeamp
// version.
func NewResult(s dialects.Server, version string) *result.Result {
	return &result.Result{
		SchemaVersion: result.SchemaVersion,
		Tool:          result.Tool{Name: "writeamp", Version: version},
		Server:        result.Server{Dialect: s.Dialect, Version: s.Version, Flavor: s.Flavor, Name: s.String(), Settings: s.Settings()},
		CreatedAt:     time.Now().UTC().Format(time.RFC3339),
	}
}

func (e *Experiment) variant(ctx context.Context, v string, cleanupCtx func() (context.Context, context.CancelFunc), res *result.Result) (run *result.Run, err error) {
	w, win := e.Workload, e.Window
	phase := func(p string, err error) error {
		if err == nil {
			return nil
		}
		var pe *PhaseError
		if errors.As(err, &pe) { // a step of the window names its own phase
			p, err = pe.Phase, pe.Err
		}
		if errors.Is(err, context.Canceled) {
			err = fmt.Errorf("interrupted: %w", err)
		}
		return &PhaseError{Variant: v, Phase: p, Err: err}
	}
	t0 := time.Now()
	since := func() string {
		d := time.Since(t0).Round(time.Millisecond)
		t0 = time.Now()
		return d.String()
	}
	e.logf("variant %s: preparing", v)
	if err := w.Prepare(ctx, win.Target, v); err != nil {
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
		if cerr := w.Cleanup(cctx, win.Target); cerr != nil {
			err = errors.Join(err, phase("cleanup", cerr))
		}
	}()
	sc := w.Scope()
	restore, wu, err := e.place(ctx, v, sc)
	if err != nil {
		return nil, phase("warm-up", err)
	}
	sessions := collectors.NewSessions()
	span, err := win.BeginWorkload(ctx, sc, sessions)
	restore()
	if err != nil {
		return nil, phase("snapshot before", err)
	}
	span.Label = "variant " + v
	defer span.StopObserving(ctx) // when the workload fails before End
	if len(e.Nodes) > 0 {
		// Each node's window opens once it has the workload's objects (a
		// replica waits until it has applied the Prepare) and ends after
		// the primary's, in endNodes, before the workload's cleanup.
		for _, n := range e.Nodes {
			n.Scope, n.span = sc, nil
		}
		defer restoreNodes(ctx, e.Nodes)
		if err := beginNodes(ctx, e.Nodes, res); err != nil {
			return nil, phase("snapshot before (node)", err)
		}
	}
	e.logf("variant %s: settled and took the before snapshot in %s", v, since())
	ops, err := w.Ops()
	if err != nil {
		return nil, phase("workload", err)
	}
	var prog workloads.Progress = workloads.NoProgress{}
	done := func() {}
	if e.Progress != nil {
		prog, done = e.Progress(v, w.TotalOperations())
	}
	e.logf("variant %s: running %d operations", v, w.TotalOperations())
	runner := workloads.Runner{Target: win.Target, Concurrency: e.Concurrency, NoPipeline: e.NoPipeline, Progress: prog, Watch: sessions.Set, Xacts: true}
	stats, runErr := runner.Run(ctx, ops)
	done()
	e.logf("variant %s: workload ran in %s", v, since())
	if runErr != nil && ctx.Err() != nil {
		return nil, phase("workload", runErr)
	}
	wr := writes(w, stats, sc)
	delta, err := span.End(ctx, AwaitRows(wr, 10*time.Second).WithXacts(stats.Xacts))
	stats.Xacts = nil // the window's log is read (End)
	if err != nil {
		// The server went away (killed, restarted, the connection lost): no
		// counters, but what the driver counted is still a partial result.
		var pe *PhaseError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		run = unmeasured(v, stats, w.Meta().MainOperation, err)
		run.Warnings = append(span.Warnings, run.Warnings...)
		if runErr != nil {
			// The workload's failure is the cause; the snapshot failing
			// after it is the consequence.
			return run, phase("workload", fmt.Errorf("%w (the after snapshot failed too: %v)", runErr, err)) //nolint:errorlint // the first error is the cause callers classify; the snapshot's failure after it is reported, not matched
		}
		return run, phase("snapshot after", err)
	}
	run = BuildRun(v, delta, stats, w.Meta().MainOperation)
	run.Writes = wr
	wu.record(run)
	// The nodes' windows end now, while the workload's objects still exist.
	e.nodeRuns = nil
	if len(e.Nodes) > 0 {
		tmp := &result.Result{Runs: []result.Run{*run}}
		if err := endNodes(ctx, e.Nodes, Quiet(10*time.Second), stats, w.Meta().MainOperation, tmp); err != nil {
			run.Warnings = append(run.Warnings, "nodes: "+err.Error())
		}
		e.nodeRuns, e.nodeNotes = tmp.Runs[1:], tmp.Notes
	}
	if am, ok := w.(workloads.RunAmender); ok {
		am.AmendRun(run, stats)
	}
	span.AddToRun(run)
	run.Warnings = append(span.Warnings, run.Warnings...)
	checkpointFact(run)
	if e.Vacuum && runErr == nil {
		e.logf("variant %s: vacuuming", v)
		if err := win.Vacuum(ctx, run, sc); err != nil {
			if ctx.Err() != nil {
				return run, phase("vacuum", err)
			}
			// The variant's own window stands; only its vacuum is unknown.
			run.Warnings = append(run.Warnings, "vacuum: "+err.Error())
		}
		e.logf("variant %s: vacuumed in %s", v, since())
	}
	// After the vacuum, which measures what the variant's own window left:
	// the epilogue's deletes (the expiration job) are not its work.
	if runErr == nil {
		if err := e.epilogue(ctx, run, sc); err != nil {
			if ctx.Err() != nil {
				return run, phase("epilogue", err)
			}
			run.Warnings = append(run.Warnings, "epilogue: "+err.Error())
		}
	}
	if runErr != nil {
		run.Partial = true
		run.Warnings = append(run.Warnings, "the workload stopped early: "+runErr.Error())
		return run, phase("workload", runErr)
	}
	return run, nil
}
