package collectors

import (
	"fmt"
	"sort"
	"time"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/result"
)

// Delta is what happened between two snapshots.
type Delta struct {
	Server   dialects.Server
	Before   *Snapshot
	After    *Snapshot
	Values   map[Key]result.Metric
	Objects  []Object
	Missing  []Missing
	Warnings []Warning
	// Resets lists the keys whose counters went down or whose object was
	// recreated: their value is unavailable, never negative.
	Resets []Key
	// Writes are the DML statements the built-in workload issued in the
	// window, with the rows they changed. Dialects without per-index counters
	// (InnoDB) derive index writes from them; empty for wrapped commands.
	Writes []Write
	// Statements are the server's per-statement statistics over the window
	// (statements.go), nil where not read.
	Statements []StatementDelta
	// StatementView is the view they were read from.
	StatementView *Statements
	// Xacts are the built-in workload's transactions (id to operation), set
	// before the log is read; Operations is the log split by them, where
	// the dialect's log reader can (OperationSplitter).
	Xacts      *Xacts
	Operations *OperationLog
}

// Write is what one kind of statement did in the window.
type Write = result.Write

// Get returns a metric, or an unavailable one when nothing was measured.
func (d *Delta) Get(k Key) result.Metric {
	if m, ok := d.Values[k]; ok {
		return m
	}
	return result.NA("", "not measured")
}

// Has reports whether a metric was measured (any exactness).
func (d *Delta) Has(k Key) bool { _, ok := d.Values[k]; return ok }

// Put sets a metric unless one is already there (measured beats derived).
func (d *Delta) Put(k Key, m result.Metric) {
	if old, ok := d.Values[k]; ok && old.Exactness != result.Unavailable {
		return
	}
	d.Values[k] = m
}

// Object returns the catalog entry for "schema.name".
func (d *Delta) Object(fqn string) (Object, bool) {
	for _, o := range d.Objects {
		if o.FQN() == fqn {
			return o, true
		}
	}
	return Object{}, false
}

// Diff subtracts before from after. Counters that went down, or whose object
// identity changed, are resets: reported, never printed as negative.
func Diff(before, after *Snapshot) (*Delta, error) {
	if err := SameServer(before.Server, after.Server); err != nil {
		return nil, err
	}
	d := &Delta{Server: after.Server, Before: before, After: after, Values: map[Key]result.Metric{}}
	// Two snapshots of one server list their counters in the same order
	// (the same queries, ordered by the catalog), so the counter before is
	// usually the next one: a map of positions is built only when the order
	// differs: on a diff of many indexes that map is a large part of the
	// peak, and a map of whole counters would double its memory.
	next := 0
	var prev map[Key]int
	find := func(k Key) (int, bool) {
		if next < len(before.Counters) && before.Counters[next].Key == k {
			next++
			return next - 1, true
		}
		if prev == nil {
			prev = make(map[Key]int, len(before.Counters))
			for i, c := range before.Counters {
				prev[c.Key] = i
			}
		}
		i, ok := prev[k]
		if ok {
			next = i + 1
		}
		return i, ok
	}
	d.Values = make(map[Key]result.Metric, len(after.Counters))
	for _, c := range after.Counters {
		if c.Interval {
			d.Values[c.Key] = result.Metric{Value: ptr(c.Value), Exactness: c.Exactness, Source: c.Source, Note: c.Note}
			continue
		}
		pi, ok := find(c.Key)
		var p Counter
		if ok {
			p = before.Counters[pi]
		}
		m := result.Metric{Exactness: c.Exactness, Source: c.Source, Note: c.Note}
		switch {
		case !ok:
			// The object appeared during the window: its counters started at zero.
			m.Value = ptr(c.Value)
			m.Note = joinNote(m.Note, "object created during the window; counted from its creation")
		case p.Identity != c.Identity:
			m = result.NA(c.Source, fmt.Sprintf("counter reset: object was recreated during the window (identity %s -> %s)", p.Identity, c.Identity))
			d.Resets = append(d.Resets, c.Key)
		case p.Reset != c.Reset && !(p.Reset == "" && p.Value == 0):
			// A counter whose statistics first came to exist in the window
			// (never reset, read as zero before) counted from zero: no loss.
			m = result.NA(c.Source, fmt.Sprintf("counter reset: its statistics were reset during the window (at %s), so the difference would miss what happened before the reset", c.Reset))
			d.Resets = append(d.Resets, c.Key)
		case c.Value < p.Value && !c.Gauge:
			m = result.NA(c.Source, fmt.Sprintf("counter reset: went down from %.0f to %.0f (statistics reset, restart or cache eviction)", p.Value, c.Value))
			d.Resets = append(d.Resets, c.Key)
		default:
			m.Value = ptr(c.Value - p.Value)
		}
		d.Values[c.Key] = m
	}
	var swarn []string
	d.Statements, swarn = diffStatements(before.Statements, after.Statements)
	for _, w := range swarn {
		d.Warn(WarnOther, "", "", w)
	}
	d.StatementView = after.Statements
	d.Objects = mergeObjects(before.Objects, after.Objects)
	d.Missing = mergeMissing(before.Missing, after.Missing)
	if len(d.Resets) > 0 {
		d.Warn(WarnReset, "", "", fmt.Sprintf("%d counters were reset during the window and are shown as unavailable (e.g. %s)", len(d.Resets), d.Resets[0]))
	}
	return d, nil
}

// SameServer refuses a diff of snapshots from different servers or across a restart.
func SameServer(a, b dialects.Server) error {
	if a.Dialect != b.Dialect {
		return fmt.Errorf("snapshots are from different databases (%s vs %s)", a.Dialect, b.Dialect)
	}
	if a.Identity != "" && b.Identity != "" && a.Identity != b.Identity {
		return fmt.Errorf("snapshots are from different servers (identity %s vs %s)", a.Identity, b.Identity)
	}
	if a.Database != b.Database {
		return fmt.Errorf("snapshots are from different databases (%q vs %q)", a.Database, b.Database)
	}
	if !a.StartedAt.IsZero() && !b.StartedAt.IsZero() && !a.StartedAt.Equal(b.StartedAt) {
		return fmt.Errorf("the server restarted between the snapshots (started %s, then %s): its counters were reset", a.StartedAt.Format(time.RFC3339), b.StartedAt.Format(time.RFC3339))
	}
	return nil
}

func mergeObjects(a, b []Object) []Object {
	seen := map[string]bool{}
	var out []Object
	for _, list := range [][]Object{b, a} {
		for _, o := range list {
			k := string(o.Level) + "/" + o.FQN()
			if !seen[k] {
				seen[k] = true
				out = append(out, o)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].FQN() < out[j].FQN() })
	return out
}

func mergeMissing(a, b []Missing) []Missing {
	seen := map[string]bool{}
	var out []Missing
	for _, m := range append(append([]Missing{}, a...), b...) {
		if !seen[m.Collector+m.Reason] {
			seen[m.Collector+m.Reason] = true
			out = append(out, m)
		}
	}
	return out
}

// Unavailable sets metrics of every object at level to "unavailable" with
// source and note: a server that keeps no such figure (a standby's row
// counters) gives no figure, never the zero its view shows.
func (d *Delta) Unavailable(level Level, metrics []*result.Info, source, note string) {
	for _, o := range d.Objects {
		if o.Level != level {
			continue
		}
		for _, m := range metrics {
			d.Values[NewKey(level, o.FQN(), m)] = result.NA(source, note)
		}
	}
}
