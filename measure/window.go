package measure

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
)

// Window is one measured database: the connection, its dialect (looked up
// once, from the DSN), the probed server with its capabilities, and the
// collector set that reads it. Its methods are the steps every measurement
// takes, in this order:
//
//	Instrument → Begin (settle, snapshot) → [the workload] → End (settle,
//	await the window's counts, snapshot, diff, read the log) → Restore
//
// used alike by run (Experiment), measure (Wrapped), snapshot/diff and
// check. Instrument may update Server (what is now available).
type Window struct {
	dialects.Target
	Set *collectors.Set
	Log io.Writer // notes as they happen (stderr); nil discards
	// Version is writeamp's, as the command was built: results and
	// snapshot files made through the window carry it.
	Version string
	// Observers watch each window while its workload runs (observe.go).
	Observers []Observer
	// CreateStatements is the user's consent to create the per-statement
	// view for the run where the dialect can and the server lacks it
	// (--create-pg-stat-statements); Restore drops only what was created.
	CreateStatements bool

	probed   dialects.Server // Server as probed, before Instrument
	restores []func(context.Context) error
}

// NewWindow finds the collectors of t's dialect.
func NewWindow(t dialects.Target, log io.Writer) (*Window, error) {
	if t.Dialect == nil {
		return nil, errors.New("measure: no dialect")
	}
	set, err := collectors.For(t.Dialect.Name())
	if err != nil {
		return nil, err
	}
	return &Window{Target: t, Set: set, Log: log, probed: t.Server}, nil
}

func (w *Window) logf(format string, a ...any) {
	if w.Log != nil {
		fmt.Fprintf(w.Log, format+"\n", a...)
	}
}

// Instrument turns on what the dialect can add for a measured window
// (PostgreSQL: pg_walinspect, MariaDB: the InnoDB index monitors) and
// updates Server to say so; it returns the notes for the result. With
// holdWAL, the log from now on is also kept on the server until Restore
// (PostgreSQL: a temporary replication slot), so a window that outlives the
// server's WAL retention can still be read. The caller defers Restore.
func (w *Window) Instrument(ctx context.Context, holdWAL bool) (notes []string) {
	if ins, ok := w.Dialect.(dialects.Instrumenter); ok {
		restore, n := ins.Instrument(ctx, w.DB, &w.Server)
		notes = append(notes, n...)
		for _, note := range n {
			w.logf("note: %s", note) // what was created, found or will be removed
		}
		if restore != nil {
			w.restores = append(w.restores, restore)
		}
	}
	if sc, ok := w.Dialect.(dialects.StatementsCreator); ok && w.CreateStatements {
		undo, note, err := sc.CreateStatements(ctx, w.DB, w.Server)
		if err != nil {
			note = "--create-pg-stat-statements: " + err.Error()
		}
		if note != "" {
			notes = append(notes, note)
			w.logf("note: %s", note)
		}
		if undo != nil {
			w.restores = append(w.restores, undo)
		}
	}
	if h, ok := w.Dialect.(dialects.WALHolder); ok && holdWAL {
		release, err := h.HoldWAL(ctx, w.DB, w.Server)
		switch {
		case err == nil:
			w.restores = append(w.restores, release)
		case errors.Is(err, dialects.ErrUnsupported):
			// Short windows need no slot; a long one that loses its start
			// says so when the log is read.
		default:
			notes = append(notes, err.Error())
		}
	}
	return notes
}

// Restore undoes what Instrument turned on, in reverse, within timeout (30 s
// when 0) even when ctx was cancelled (Ctrl-C), and Server is as probed
// again; a failure to restore is written to the log.
func (w *Window) Restore(ctx context.Context, timeout time.Duration) {
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	for i := len(w.restores) - 1; i >= 0; i-- {
		switch err := w.restores[i](cctx); {
		case err == nil:
		case errors.Is(err, dialects.ErrInUse):
			w.logf("note: %v", err)
		default:
			w.logf("warning: %v", err)
		}
	}
	w.restores = nil
	w.Server = w.probed
}

// Span is one window being measured: its scope, the before snapshot and
// the warnings of settling the server around it.
type Span struct {
	w *Window
	// Label, when set, names the window in the log's phase timings.
	Label    string
	Scope    collectors.Scope
	Before   *collectors.Snapshot
	Warnings []string
	t0       time.Time

	observing []Observation
	stopped   bool
	// sessions are the built-in workload's (BeginWorkload), for the wait
	// samplers; nil for a wrapped command.
	sessions *collectors.Sessions
}

// Begin settles the server for a window on sc (CHECKPOINT; PostgreSQL 13/14
// waits for earlier statistics to arrive) and takes the before snapshot.
func (w *Window) Begin(ctx context.Context, sc collectors.Scope) (*Span, error) {
	return w.begin(ctx, sc, nil)
}

// BeginWorkload is Begin for a built-in workload whose runner reports its
// sessions to ss as they connect, so the wait samplers watch those.
func (w *Window) BeginWorkload(ctx context.Context, sc collectors.Scope, ss *collectors.Sessions) (*Span, error) {
	return w.begin(ctx, sc, ss)
}

func (w *Window) begin(ctx context.Context, sc collectors.Scope, ss *collectors.Sessions) (*Span, error) {
	sp := &Span{w: w, Scope: sc, sessions: ss}
	sp.prepare(ctx)
	sp.Warnings = append(sp.Warnings, dialects.BeforeMeasure(ctx, w.Dialect, w.DB, w.Server, sc.Schemas)...)
	before, err := w.Set.Take(ctx, w.DB, w.Server, sc)
	if err != nil {
		return nil, &PhaseError{Phase: "snapshot before", Err: err}
	}
	sp.Before = before
	sp.t0 = time.Now()
	sp.observe(ctx)
	return sp, nil
}

// since logs how long a step of the window took: where the time of a run
// goes is the first question when it is slower than the workload alone.
func (sp *Span) since(what string) {
	if sp.Label != "" {
		sp.w.logf("%s: %s in %s", sp.Label, what, time.Since(sp.t0).Round(time.Millisecond))
	}
	sp.t0 = time.Now()
}

// Until says when a window's after snapshot is complete.
type Until struct {
	writes  []collectors.Write
	bound   time.Duration
	quiesce bool
	xacts   *collectors.Xacts
}

// WithXacts has the log of the window split by the workload's transactions
// (id to operation, workloads.Stats.Xacts) where the dialect can.
func (u Until) WithXacts(x *collectors.Xacts) Until { u.xacts = x; return u }

// AwaitRows waits (within bound) until the scoped table counters have caught
// up with the rows the workload's driver saw change, then holds each against
// them: a built-in workload knows what it wrote.
func AwaitRows(writes []collectors.Write, bound time.Duration) Until {
	return Until{writes: writes, bound: bound}
}

// Quiet waits (within timeout) until two readings of the scoped counters
// agree: a wrapped command's sessions publish their statistics as they end,
// which can land just after it exits, and nothing says how many rows it wrote.
func Quiet(timeout time.Duration) Until { return Until{bound: timeout, quiesce: true} }

// End settles the server after the workload, takes the after snapshot once
// until is met, diffs, and reads the log of the window (interval
// collectors, derivations). Settling's warnings are added to Warnings;
// errors name their phase ("snapshot after", "diff").
func (sp *Span) End(ctx context.Context, until Until) (*collectors.Delta, error) {
	w := sp.w
	sp.StopObserving(ctx)
	sp.t0 = time.Now()
	sp.Warnings = append(sp.Warnings, w.Dialect.Settle(ctx, w.DB, w.Server, sp.Scope.Schemas)...)
	var delta *collectors.Delta
	if until.quiesce {
		after, quiet, err := w.Quiesce(ctx, sp.Scope, until.bound)
		if err != nil {
			return nil, &PhaseError{Phase: "snapshot after", Err: err}
		}
		if !quiet {
			sp.Warnings = append(sp.Warnings, fmt.Sprintf("table counters were still changing %s after the command ended (other sessions writing to the same tables?): they include that activity", until.bound))
		}
		if delta, err = collectors.Diff(sp.Before, after); err != nil {
			return nil, &PhaseError{Phase: "diff", Err: err}
		}
	} else {
		var err error
		if delta, err = w.awaitWrites(ctx, sp, until); err != nil {
			return nil, &PhaseError{Phase: "snapshot after", Err: err}
		}
		delta.Writes = until.writes
		crossCheckWrites(delta, until.writes)
	}
	sp.since("settled and took the after snapshot")
	sp.observed(delta)
	delta.Xacts = until.xacts
	w.ReadLog(ctx, delta)
	// Read: the list (5 bytes a transaction, millions of them in a long
	// run) is not held on through the vacuum and the expiration job.
	delta.Xacts = nil
	sp.since("read the log of the window")
	return delta, nil
}

// ReadLog runs the interval collectors (which read the log between the two
// snapshots) and the dialect's derivations on a diffed window.
func (w *Window) ReadLog(ctx context.Context, d *collectors.Delta) {
	w.Set.RunInterval(ctx, w.DB, d)
}
