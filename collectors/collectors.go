// Package collectors snapshots a server's own write counters and diffs two
// snapshots into the metrics of a measured window. Dialect folders hold one
// collector per source view, each file named after the view it reads.
package collectors

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/result"
)

// Level says what a counter belongs to.
type Level string

const (
	DB    Level = "database"
	Table Level = "table"
	Index Level = "index"
)

// Key names one number: for tables and indexes Object is "schema.name".
type Key struct {
	Level  Level  `json:"level"`
	Object string `json:"object,omitempty"`
	Metric string `json:"metric"`
}

func (k Key) String() string {
	if k.Object == "" {
		return string(k.Level) + ":" + k.Metric
	}
	return string(k.Level) + ":" + k.Object + ":" + k.Metric
}

// Counter is one reading. Cumulative counters and positions (LSNs) are
// diffed; Interval counters were already measured over the window.
type Counter struct {
	Key
	Value     float64          `json:"value"`
	Exactness result.Exactness `json:"exactness"`
	Source    string           `json:"source"`
	// Identity changes when the object was recreated (new oid, DATAOBJ#,
	// partition) so its counters restarted: a diff then reports a reset.
	Identity string `json:"identity,omitempty"`
	// Reset is when the counter's statistics were last reset ("" = never,
	// or not known): a change inside the window means the counter restarted
	// from zero even if it has since grown past its "before" value.
	Reset    string `json:"reset,omitempty"`
	Interval bool   `json:"interval,omitempty"`
	// Gauge values (sizes) may go down without that being a reset.
	Gauge bool   `json:"gauge,omitempty"`
	Note  string `json:"note,omitempty"`
}

// Object is a table or index in scope, from the catalog.
type Object struct {
	Level  Level             `json:"level"`
	Schema string            `json:"schema"`
	Name   string            `json:"name"`
	Table  string            `json:"table,omitempty"` // the index's table (name, no schema)
	ID     string            `json:"id,omitempty"`    // dialect's id, e.g. PostgreSQL relfilenode
	Info   map[string]string `json:"info,omitempty"`
}

// FQN is "schema.name".
func (o Object) FQN() string { return o.Schema + "." + o.Name }

// Missing records a collector that gave nothing.
type Missing = result.Missing

// Snapshot is one reading of every collector.
type Snapshot struct {
	Server   dialects.Server   `json:"server"`
	TakenAt  time.Time         `json:"taken_at"`
	Scope    Scope             `json:"scope"`
	Counters []Counter         `json:"counters"`
	Objects  []Object          `json:"objects,omitempty"`
	Marks    map[string]string `json:"marks,omitempty"`
	Missing  []Missing         `json:"missing,omitempty"`
}

// Collector reads one source view.
type Collector interface {
	Name() string
	// Supports returns nil, or an error wrapping dialects.ErrUnsupported (or a
	// *dialects.PrivilegeError) saying why this server cannot give it.
	Supports(s dialects.Server) error
	Collect(ctx context.Context, q dialects.Querier, s dialects.Server, sc Scope) ([]Counter, error)
}

// Cataloger is a collector that lists the objects in scope, with any
// per-object readings made in the same pass (e.g. relation sizes). Take calls
// Catalog instead of Collect for it, so the catalog is read once.
type Cataloger interface {
	Catalog(ctx context.Context, q dialects.Querier, s dialects.Server, sc Scope) ([]Object, []Counter, error)
}

// CatalogNote is a Cataloger's "objects listed, some readings skipped": the
// snapshot goes on and the report says what was not read and why.
type CatalogNote struct{ Reason string }

func (n *CatalogNote) Error() string { return n.Reason }

// Marker is a collector that records positions (e.g. the WAL LSN) that
// interval collectors later read between.
type Marker interface {
	Marks(ctx context.Context, q dialects.Querier, s dialects.Server) (map[string]string, error)
}

// IntervalCollector reads what happened between two snapshots from a log
// (e.g. pg_walinspect between the two LSNs) instead of diffing counters.
type IntervalCollector interface {
	Name() string
	Supports(s dialects.Server) error
	CollectInterval(ctx context.Context, q dialects.Querier, s dialects.Server, before, after *Snapshot) ([]Counter, error)
}

// Deriver fills numbers the server does not count from those it does, and
// labels them derived (e.g. per-index leaf inserts from table counters).
type Deriver func(d *Delta)

// Set is the collectors of one dialect.
type Set struct {
	Collectors []Collector
	Interval   []IntervalCollector
	Derive     []Deriver
	// Samplers run beside the workload while the window is open (waits,
	// which no cumulative counter keeps per session).
	Samplers []Sampler
	// SnapshotTx opens the read-only transaction a snapshot runs in and sets
	// what the dialect needs for a consistent read (e.g. stats_fetch_consistency).
	SnapshotTx func(ctx context.Context, db *sql.DB, s dialects.Server) (*sql.Tx, error)
	// Savepoint and RollbackTo, when set, wrap each collector so that one
	// failing statement (a missing privilege) does not abort the transaction
	// for the collectors after it (PostgreSQL aborts on any error).
	Savepoint, RollbackTo string
}

var (
	mu   sync.RWMutex
	sets = map[string]*Set{}
)

// Register installs the collector set of a dialect.
func Register(dialect string, s *Set) {
	mu.Lock()
	defer mu.Unlock()
	sets[dialect] = s
}

// For returns the collector set of a dialect.
func For(dialect string) (*Set, error) {
	mu.RLock()
	defer mu.RUnlock()
	s, ok := sets[dialect]
	if !ok {
		return nil, fmt.Errorf("collectors: no collectors registered for %s", dialect)
	}
	return s, nil
}

// missingFrom turns a Supports/Collect error into a report line.
func missingFrom(name string, err error) Missing {
	m := Missing{Collector: name, Reason: err.Error()}
	var pe *dialects.PrivilegeError
	if errors.As(err, &pe) {
		m.Reason = "missing privilege " + pe.Privilege
		if pe.Err != nil {
			m.Reason += ": " + pe.Err.Error()
		}
		m.Fix = pe.Grant
	}
	return m
}

// Take reads every supported collector inside one read-only transaction. A
// collector that fails is recorded in Missing and the snapshot goes on.
func (set *Set) Take(ctx context.Context, db *sql.DB, s dialects.Server, sc Scope) (*Snapshot, error) {
	snap := &Snapshot{Server: s, Scope: sc, Marks: map[string]string{}}
	tx, err := set.begin(ctx, db, s)
	if err != nil {
		return nil, fmt.Errorf("snapshot: open read-only transaction: %w", err)
	}
	// Rollback, not commit: the observer leaves nothing, not even a commit record.
	defer tx.Rollback()
	snap.TakenAt = time.Now().UTC()
	// Each collector's counters are kept apart and joined once: appending
	// tens of thousands of counters to one growing slice copied them over
	// and over.
	var parts [][]Counter
	defer func() {
		n := 0
		for _, p := range parts {
			n += len(p)
		}
		snap.Counters = make([]Counter, 0, n)
		for _, p := range parts {
			snap.Counters = append(snap.Counters, p...)
		}
	}()
	for _, c := range set.Collectors {
		if err := c.Supports(s); err != nil {
			snap.Missing = append(snap.Missing, missingFrom(c.Name(), err))
			continue
		}
		if m, ok := c.(Marker); ok {
			marks, err := m.Marks(ctx, tx, s)
			if err != nil {
				return nil, fmt.Errorf("snapshot: %s: %w", c.Name(), err)
			}
			for k, v := range marks {
				snap.Marks[k] = v
			}
		}
		if cat, ok := c.(Cataloger); ok {
			objs, cs, err := cat.Catalog(ctx, tx, s, sc)
			var note *CatalogNote
			if errors.As(err, &note) {
				snap.Missing = append(snap.Missing, Missing{Collector: c.Name(), Reason: note.Reason})
				err = nil
			}
			if err != nil {
				return nil, fmt.Errorf("snapshot: %s: %w", c.Name(), err)
			}
			snap.Objects = append(snap.Objects, objs...)
			parts = append(parts, cs)
			continue
		}
		cs, err := set.collectOne(ctx, tx, s, c, sc)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			snap.Missing = append(snap.Missing, missingFrom(c.Name(), err))
			continue
		}
		parts = append(parts, cs)
	}
	return snap, nil
}

// begin opens the dialect's observer transaction (read-only where the
// driver supports it; some drivers refuse sql.TxOptions.ReadOnly).
func (set *Set) begin(ctx context.Context, db *sql.DB, s dialects.Server) (*sql.Tx, error) {
	if set.SnapshotTx != nil {
		return set.SnapshotTx(ctx, db, s)
	}
	return db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
}

func (set *Set) collectOne(ctx context.Context, tx *sql.Tx, s dialects.Server, c Collector, sc Scope) ([]Counter, error) {
	if set.Savepoint != "" {
		if _, err := tx.ExecContext(ctx, set.Savepoint); err != nil {
			return nil, fmt.Errorf("%s: savepoint: %w", c.Name(), err)
		}
	}
	cs, err := c.Collect(ctx, tx, s, sc)
	if err != nil {
		if set.RollbackTo != "" {
			if _, rerr := tx.ExecContext(ctx, set.RollbackTo); rerr != nil {
				return nil, fmt.Errorf("%s: %w (and the rollback to savepoint failed: %v)", c.Name(), err, rerr)
			}
		}
		return nil, err
	}
	return cs, nil
}

// Delta is what happened between two snapshots.
type Delta struct {
	Server   dialects.Server
	Before   *Snapshot
	After    *Snapshot
	Values   map[Key]result.Metric
	Objects  []Object
	Missing  []Missing
	Warnings []string
	// Resets lists the keys whose counters went down or whose object was
	// recreated: their value is unavailable, never negative.
	Resets []Key
	// Writes are the DML statements the built-in workload issued in the
	// window, with the rows they changed. Dialects without per-index counters
	// (InnoDB) derive index writes from them; empty for wrapped commands.
	Writes []Write
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
	prev := map[Key]Counter{}
	for _, c := range before.Counters {
		prev[c.Key] = c
	}
	for _, c := range after.Counters {
		if c.Interval {
			d.Values[c.Key] = result.Metric{Value: ptr(c.Value), Exactness: c.Exactness, Source: c.Source, Note: c.Note}
			continue
		}
		p, ok := prev[c.Key]
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
	d.Objects = mergeObjects(before.Objects, after.Objects)
	d.Missing = mergeMissing(before.Missing, after.Missing)
	if len(d.Resets) > 0 {
		d.Warnings = append(d.Warnings, fmt.Sprintf("%d counters were reset during the window and are shown as unavailable (e.g. %s)", len(d.Resets), d.Resets[0]))
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

// LogLostError is an interval collector's failure because the log of the
// window is no longer on the server: the report warns, not just lists it.
type LogLostError struct {
	Err error
	Why string
}

func (e *LogLostError) Error() string { return e.Why }
func (e *LogLostError) Unwrap() error { return e.Err }

// RunInterval runs the interval collectors over the window and derivers
// over the result. Failures become Missing entries.
func (set *Set) RunInterval(ctx context.Context, db *sql.DB, d *Delta) {
	for _, ic := range set.Interval {
		if err := ic.Supports(d.Server); err != nil {
			d.Missing = append(d.Missing, missingFrom(ic.Name(), err))
			continue
		}
		cs, err := func() ([]Counter, error) {
			tx, err := set.begin(ctx, db, d.Server)
			if err != nil {
				return nil, err
			}
			defer tx.Rollback()
			return ic.CollectInterval(ctx, tx, d.Server, d.Before, d.After)
		}()
		if err != nil {
			d.Missing = append(d.Missing, missingFrom(ic.Name(), err))
			var lost *LogLostError
			if errors.As(err, &lost) {
				d.Warnings = append(d.Warnings, lost.Why)
			}
			continue
		}
		for _, c := range cs {
			d.Values[c.Key] = result.Metric{Value: ptr(c.Value), Exactness: c.Exactness, Source: c.Source, Note: c.Note}
		}
	}
	for _, der := range set.Derive {
		der(d)
	}
}

func ptr(v float64) *float64 { return &v }

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
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
