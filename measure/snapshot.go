package measure

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
)

// SnapshotOptions are what `writeamp snapshot` asks of one reading.
type SnapshotOptions struct {
	Scope collectors.Scope
	// Checkpoint settles the server first (PostgreSQL: CHECKPOINT), so
	// full-page images in the window start from zero as in run and measure.
	Checkpoint bool
	// HoldWAL keeps the log from now on until the diff reads it
	// (PostgreSQL: a replication slot named in the snapshot).
	HoldWAL bool
	// EnableMonitors turns on the InnoDB monitors that are off and leaves
	// them on for the window; the file records how to turn them off again.
	EnableMonitors bool
	Where          string // the DSN, password redacted
	// AfterInstrument, when set, runs right after the monitors are on
	// (a test interrupts there).
	AfterInstrument func()
}

// ErrNoMonitors: --enable-monitors on a dialect that has none.
var ErrNoMonitors = errors.New("no monitors to enable (MySQL/MariaDB only)")

// TakeSnapshot reads every collector once for a later diff. What it sets up
// for the window (monitors, a WAL reservation) outlives it on purpose: the
// diff undoes it. Until the file is safely written, abandon undoes it now;
// on an error TakeSnapshot has already done so.
func (w *Window) TakeSnapshot(ctx context.Context, o SnapshotOptions) (f *SnapshotFile, abandon func(), err error) {
	var undo []func()
	abandon = func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
		undo = nil
	}
	defer func() {
		if err != nil {
			abandon()
		}
	}()
	var state string
	if o.EnableMonitors {
		si, ok := w.Dialect.(dialects.StatefulInstrumenter)
		if !ok {
			return nil, abandon, fmt.Errorf("%s has %w", w.Server, ErrNoMonitors)
		}
		var notes []string
		state, notes = si.InstrumentState(ctx, w.DB, &w.Server)
		if o.AfterInstrument != nil {
			o.AfterInstrument()
		}
		for _, n := range notes {
			w.logf("note: %s", n)
		}
		// A snapshot that fails or is interrupted leaves nothing on: no
		// diff would ever turn it off.
		undo = append(undo, func() {
			if state == "" {
				return
			}
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			defer cancel()
			if err := si.RestoreState(cctx, w.DB, w.Server, state); err != nil {
				w.logf("warning: %v", err)
			}
		})
	}
	checkpointed := false
	if o.Checkpoint {
		for _, warn := range w.Dialect.BeforeMeasure(ctx, w.DB, w.Server) {
			if warn == dialects.AfterCheckpoint {
				w.logf("note: %s", warn)
				checkpointed = true
				continue
			}
			w.logf("warning: %s", warn)
		}
	}
	slot, release := w.reserveWAL(ctx, o.HoldWAL)
	undo = append(undo, release) // no file, so no diff would ever drop the slot
	snap, err := w.Set.Take(ctx, w.DB, w.Server, o.Scope)
	if err != nil {
		return nil, abandon, err
	}
	if slot != "" {
		snap.Marks[dialects.MarkWALSlot] = slot
	}
	for _, m := range snap.Missing {
		w.logf("note: not read: %s: %s", m.Collector, m.Reason)
	}
	if err := ctx.Err(); err != nil {
		return nil, abandon, err
	}
	f = NewSnapshotFile(snap, o.Where)
	f.Tool.Version = w.Version
	f.Instrumented = state
	f.AfterCheckpoint = checkpointed // only when the CHECKPOINT ran, which BeforeMeasure says
	return f, abandon, nil
}

// reserveWAL keeps the log from now on for the diff that will read this
// window (PostgreSQL: a replication slot). release drops it again when the
// snapshot is not written after all.
func (w *Window) reserveWAL(ctx context.Context, hold bool) (string, func()) {
	h, ok := w.Dialect.(dialects.WALHolder)
	if !ok {
		return "", func() {}
	}
	for _, warn := range h.StaleReservations(ctx, w.DB, w.Server, 24*time.Hour) {
		w.logf("warning: %s", warn)
	}
	if !hold {
		return "", func() {}
	}
	name, err := h.ReserveWAL(ctx, w.DB, w.Server)
	if err != nil {
		w.logf("note: %v; diff reads the window's WAL only while the server still has it", err)
		return "", func() {}
	}
	return name, func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if err := h.ReleaseWAL(cctx, w.DB, w.Server, name); err != nil {
			w.logf("warning: %v", err)
		}
	}
}

// TakeNodeSnapshot reads another node of the cluster for `snapshot --node`,
// right after the main reading: a standby or replica first applies what it
// has received (the dialect's settle), so the reading holds what the
// primary wrote up to its own. Nothing is set up for the window on a node
// (no monitors, no WAL reservation: a standby takes no slot).
func (w *Window) TakeNodeSnapshot(ctx context.Context, label string, sc collectors.Scope, where string) (*SnapshotFile, error) {
	for _, warn := range w.Dialect.Settle(ctx, w.DB, w.Server, sc.Schemas) {
		w.logf("warning: %s: %s", label, warn)
	}
	snap, err := w.Set.Take(ctx, w.DB, w.Server, sc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	for _, m := range snap.Missing {
		w.logf("note: %s: not read: %s: %s", label, m.Collector, m.Reason)
	}
	f := NewSnapshotFile(snap, where)
	f.Tool.Version = w.Version
	f.Label = label
	return f, nil
}
