package measure

import (
	"context"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/result"
)

// An Observer watches a window while its workload runs, from a connection
// of its own: the interval sampler of a timeline, the wait samplers. The
// window starts each of its Observers right after the before snapshot and
// stops them before it settles the server for the after snapshot, so
// nothing an observer does lands in the settling, and it sees only the
// workload's time.
type Observer interface {
	// Observe starts watching; a nil Observation means nothing to watch
	// here, an error is the window's warning (it names the observer).
	Observe(ctx context.Context, w *Window, sp *Span) (Observation, error)
}

// A Preparer is an Observer with something to do before the window opens:
// take its connection, for one, since a connection taken from the pool may
// be checked with a statement first (pgx pings one idle over a second, an
// empty transaction that pg_stat_database counts as a commit), and that
// must not land in the window.
type Preparer interface {
	Prepare(ctx context.Context, w *Window) error
}

// An Observation is an Observer at work on one window.
type Observation interface {
	// Stop ends the observation; the window calls it once, but it must be
	// safe to call again (a workload that failed stops it on its way out).
	Stop(ctx context.Context) error
}

// DeltaObservation is an Observation whose findings are counters of the
// window (sampled waits): added to the delta before the run is built.
type DeltaObservation interface {
	Observation
	AddToDelta(d *collectors.Delta)
}

// RunObservation is an Observation whose findings belong to the run as a
// whole (the timeline's samples).
type RunObservation interface {
	Observation
	AddToRun(r *result.Run)
}

// prepare readies the window's observers before it settles the server and
// takes the before snapshot.
func (sp *Span) prepare(ctx context.Context) {
	for _, o := range sp.w.Observers {
		if p, ok := o.(Preparer); ok {
			if err := p.Prepare(ctx, sp.w); err != nil {
				sp.Warnings = append(sp.Warnings, err.Error())
			}
		}
	}
}

// observe starts the window's observers. One that cannot start is a
// warning of the window, never a failed measurement.
func (sp *Span) observe(ctx context.Context) {
	for _, o := range sp.w.Observers {
		ob, err := o.Observe(ctx, sp.w, sp)
		if err != nil {
			sp.Warnings = append(sp.Warnings, err.Error()) // the error names the observer
			continue
		}
		if ob != nil { // nil: nothing to watch on this server
			sp.observing = append(sp.observing, ob)
		}
	}
}

// StopObserving stops what observe started (each once, later calls do
// nothing). End calls it before settling; a caller that leaves the window
// without End (the workload failed) defers it.
func (sp *Span) StopObserving(ctx context.Context) {
	if sp == nil || sp.stopped {
		return
	}
	sp.stopped = true
	for _, ob := range sp.observing {
		if err := ob.Stop(ctx); err != nil {
			sp.Warnings = append(sp.Warnings, err.Error())
		}
	}
}

// observed adds what the observations found to the window's delta.
func (sp *Span) observed(d *collectors.Delta) {
	for _, ob := range sp.observing {
		if do, ok := ob.(DeltaObservation); ok {
			do.AddToDelta(d)
		}
	}
}

// AddToRun gives the run built from this window what the observations
// found that belongs to the run (the timeline's samples).
func (sp *Span) AddToRun(r *result.Run) {
	if sp == nil || r == nil {
		return
	}
	for _, ob := range sp.observing {
		if ro, ok := ob.(RunObservation); ok {
			ro.AddToRun(r)
		}
	}
}
