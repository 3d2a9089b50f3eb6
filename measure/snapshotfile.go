package measure

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/result"
	"github.com/writeamp/writeamp/workloads"
)

// SnapshotKind marks a snapshot file. Result files have no kind, so the
// two can never be mistaken for each other.
const SnapshotKind = "writeamp-snapshot"

// SnapshotSchemaVersion of the snapshot file; only ever added to.
const SnapshotSchemaVersion = 1

// SnapshotFile is what `writeamp snapshot` writes: one reading of every
// collector, with the server's identity and start time so a later diff can
// refuse a pair from different servers or across a restart.
type SnapshotFile struct {
	Kind          string               `json:"kind"`
	SchemaVersion int                  `json:"schema_version"`
	Tool          result.Tool          `json:"tool"`
	Where         string               `json:"where,omitempty"` // the DSN, password redacted
	Snapshot      *collectors.Snapshot `json:"snapshot"`
	// Instrumented is what `snapshot --enable-monitors` turned on and left
	// on for the window, as the dialect's restore state; diff undoes it.
	Instrumented string `json:"instrumented,omitempty"`
	// AfterCheckpoint says `snapshot --checkpoint` ran a CHECKPOINT right
	// before this reading, so a window starting here begins with every
	// page's first change writing a full-page image: the diff states it
	// beside the log bytes, as run and measure do. Absent in older files
	// (and false): nothing is claimed that was not recorded.
	AfterCheckpoint bool `json:"after_checkpoint,omitempty"`
	// Nodes are the other nodes' readings taken with this one (snapshot
	// --node), each labelled node1, node2, ... as diff reports them.
	Nodes []*SnapshotFile `json:"nodes,omitempty"`
	Label string          `json:"label,omitempty"`
	// Path is where it was read from (not stored).
	Path string `json:"-"`
}

// NewSnapshotFile wraps a snapshot for writing (a Window's snapshots carry
// its Version).
func NewSnapshotFile(s *collectors.Snapshot, where string) *SnapshotFile {
	return &SnapshotFile{Kind: SnapshotKind, SchemaVersion: SnapshotSchemaVersion,
		Tool: result.Tool{Name: "writeamp"}, Where: where, Snapshot: s}
}

// Write encodes the file as compact JSON: indenting a snapshot of 10,000
// indexes took longer than reading it from the server (jq prints it indented).
// The snapshot is appended by hand (collectors.Snapshot.AppendJSON) and not
// through json.Encoder, which would also re-scan its megabytes to compact
// them; the bytes are encoding/json's all the same (a test holds them).
func (f *SnapshotFile) Write(w io.Writer) error {
	b, err := f.Bytes()
	if err == nil {
		_, err = w.Write(b)
	}
	return err
}

// Bytes is what Write writes, for a caller that needs the whole file before
// writing it (copying a large snapshot into a buffer was that much more to
// allocate and copy).
func (f *SnapshotFile) Bytes() ([]byte, error) {
	head, err := json.Marshal(struct {
		Kind          string      `json:"kind"`
		SchemaVersion int         `json:"schema_version"`
		Tool          result.Tool `json:"tool"`
		Where         string      `json:"where,omitempty"`
		Label         string      `json:"label,omitempty"`
		Checkpoint    bool        `json:"after_checkpoint,omitempty"`
	}{f.Kind, f.SchemaVersion, f.Tool, f.Where, f.Label, f.AfterCheckpoint})
	if err != nil {
		return nil, err
	}
	b := head[:len(head)-1]
	b = append(b, `,"snapshot":`...)
	if f.Snapshot == nil {
		b = append(b, "null"...)
	} else if b, err = f.Snapshot.AppendJSON(slices.Grow(b, 64+200*len(f.Snapshot.Counters)+160*len(f.Snapshot.Objects))); err != nil {
		return nil, err
	}
	if f.Instrumented != "" {
		in, err := json.Marshal(f.Instrumented)
		if err != nil {
			return nil, err
		}
		b = append(append(b, `,"instrumented":`...), in...)
	}
	if len(f.Nodes) > 0 {
		b = append(b, `,"nodes":[`...)
		for i, n := range f.Nodes {
			nb, err := n.Bytes()
			if err != nil {
				return nil, err
			}
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, nb[:len(nb)-1]...) // without its newline
		}
		b = append(b, ']')
	}
	return append(b, '}', '\n'), nil
}

// DiffInput is a pair of snapshot files and, optionally, the live database
// to run interval collectors (which read the log between the two positions).
type DiffInput struct {
	Before, After *SnapshotFile
	Label         string
	// Window, when set, is the database the snapshots came from, connected
	// now. Without it interval collectors are reported missing.
	Window *Window
	Log    io.Writer
	// Release lets DiffSnapshots drop the files' counters once they are
	// diffed and the log read, and their objects once the run is built: the
	// rest of the diff needs only their marks, and on snapshots of many
	// indexes the counters and the objects are most of the diff's memory.
	// For a caller that reads each file for one diff (writeamp diff).
	Release bool
	// Version is writeamp's, for the result.
	Version string
}

// ErrMismatch marks a pair of snapshots that cannot be diffed as given.
var ErrMismatch = errors.New("snapshots do not match")

// DiffSnapshots turns two snapshot files into a result with one run.
func DiffSnapshots(ctx context.Context, in DiffInput) (*result.Result, error) {
	b, a := in.Before.Snapshot, in.After.Snapshot
	if err := collectors.SameServer(b.Server, a.Server); err != nil {
		return nil, fmt.Errorf("%w: %s and %s: %w", ErrMismatch, in.Before.Path, in.After.Path, err)
	}
	if a.TakenAt.Before(b.TakenAt) {
		return nil, fmt.Errorf("%w: %s was taken before %s: give the earlier snapshot first", ErrMismatch, in.After.Path, in.Before.Path)
	}
	win := in.Window
	set, err := collectors.For(a.Server.Dialect) // the files' dialect: there may be no connection
	if err != nil {
		return nil, err
	}
	delta, err := collectors.Diff(b, a)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMismatch, err)
	}
	var warnings []string
	if fmt.Sprint(b.Scope) != fmt.Sprint(a.Scope) {
		warnings = append(warnings, fmt.Sprintf("the snapshots were taken with different scopes (%+v, %+v): objects in only one of them are shown as created during the window", b.Scope, a.Scope))
	}
	res := NewResult(a.Server, in.Version)
	res.Notes = append(res.Notes, restoreInstrumented(ctx, in)...)
	if win != nil {
		if err := collectors.SameServer(a.Server, win.Server); err != nil {
			return nil, fmt.Errorf("%w: --dsn is not the server the snapshots were taken on: %w", ErrMismatch, err)
		}
		// pg_walinspect may be absent now as it was at snapshot time: it
		// reads the WAL between the recorded positions whenever it exists,
		// so create it for the diff and drop it again, as a run does. Only
		// the log readers need it: turning counters on now would count nothing.
		if len(win.Set.Interval) > 0 {
			res.Notes = append(res.Notes, win.Instrument(ctx, false)...)
			defer win.Restore(ctx, 30*time.Second)
		}
		delta.Server = win.Server
		win.ReadLog(ctx, delta)
		res.Notes = append(res.Notes, releaseWAL(ctx, win, b, a)...)
	} else {
		for _, snap := range []*collectors.Snapshot{b, a} {
			if name := snap.Marks[dialects.MarkWALSlot]; name != "" {
				warnings = append(warnings, fmt.Sprintf("%s still keeps the window's log on the server: run diff with --dsn to read the log and drop it", name))
			}
		}
		ran := set.RunMarksOnly(ctx, delta)
		for _, ic := range set.Interval {
			if ran[ic.Name()] {
				continue
			}
			delta.Missing = append(delta.Missing, result.Missing{Collector: ic.Name(),
				Reason: "reads the log between the two snapshots, so it needs the database at diff time: pass --dsn to writeamp diff (per-index leaf inserts and log bytes per object come from it)"})
		}
		for _, der := range set.Derive {
			der(delta)
		}
	}
	if in.Release {
		b.Counters, a.Counters = nil, nil
	}
	label := in.Label
	if label == "" {
		label = "diff"
	}
	st := workloads.Stats{Elapsed: a.TakenAt.Sub(b.TakenAt), Operations: map[string]int64{}}
	run := BuildRun(label, delta, st, "")
	if in.Release {
		b.Objects, a.Objects = nil, nil // the run has its own
	}
	if in.After.AfterCheckpoint {
		warnings = append(warnings, in.After.Path+" was taken with --checkpoint: that CHECKPOINT ran inside the window, so its log (and the full-page images of the pages changed after it) are in the figures")
	}
	run.Warnings = append(append(warnings, run.Warnings...),
		"elapsed is the time between the two snapshots; everything the server did in it is included (no settle, no CHECKPOINT unless the snapshots asked for one)")
	if in.Before.AfterCheckpoint {
		// The same statement, beside the log bytes with the window's
		// full-page-image share, as run and measure give it.
		run.Warnings = append(run.Warnings, dialects.AfterCheckpoint)
		checkpointFact(run)
	}
	res.Workload = result.Workload{Name: "diff", Params: map[string]any{"before": filepath.Base(in.Before.Path), "after": filepath.Base(in.After.Path)}}
	res.Notes = append(res.Notes, StatementNotes(run)...)
	res.Runs = append(res.Runs, *run)
	return res, nil
}

// releaseWAL lets go of what the snapshots reserved to keep the window's log
// (PostgreSQL replication slots), now that it has been read; also after an
// interrupt, since a slot left behind fills the server's disk.
func releaseWAL(ctx context.Context, win *Window, snaps ...*collectors.Snapshot) []string {
	h, ok := win.Dialect.(dialects.WALHolder)
	if !ok {
		return nil
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	var notes []string
	for _, snap := range snaps {
		name := snap.Marks[dialects.MarkWALSlot]
		if name == "" {
			continue
		}
		if err := h.ReleaseWAL(cctx, win.DB, win.Server, name); err != nil {
			notes = append(notes, "could not drop "+name+": "+err.Error())
			continue
		}
		notes = append(notes, "dropped replication slot "+name+", which kept the window's log until it was read")
	}
	return notes
}

// restoreInstrumented undoes what `snapshot --enable-monitors` left on, now
// that the window is over, when diff has the database; otherwise it says
// that it is still on and how to turn it off. It runs even when ctx was
// cancelled: an interrupted diff must not leave the server changed.
func restoreInstrumented(ctx context.Context, in DiffInput) []string {
	var notes []string
	for _, f := range []*SnapshotFile{in.Before, in.After} {
		if f.Instrumented == "" {
			continue
		}
		win := in.Window
		if win == nil || collectors.SameServer(f.Snapshot.Server, win.Server) != nil {
			notes = append(notes, fmt.Sprintf("what `writeamp snapshot --enable-monitors` turned on for %s is still on: run writeamp diff with --dsn naming that server to turn it off (recorded state: %s)", f.Path, f.Instrumented))
			continue
		}
		si, ok := win.Dialect.(dialects.StatefulInstrumenter)
		switch {
		case !ok:
			notes = append(notes, fmt.Sprintf("%s records instrumentation this writeamp cannot undo (%s): %s", f.Path, f.Snapshot.Server.Dialect, f.Instrumented))
		default:
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			err := si.RestoreState(cctx, win.DB, win.Server, f.Instrumented)
			cancel()
			if err != nil {
				notes = append(notes, "restoring what `snapshot --enable-monitors` turned on failed: "+err.Error())
				if in.Log != nil {
					fmt.Fprintf(in.Log, "warning: %v\n", err)
				}
				continue
			}
			notes = append(notes, "what `writeamp snapshot --enable-monitors` turned on for the window ("+f.Path+") is turned off again")
		}
	}
	return notes
}
