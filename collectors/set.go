package collectors

import (
	"context"
	"database/sql"
	"fmt"
	"sync"

	"github.com/writeamp/writeamp/dialects"
)

// Source is one view a snapshot reads. It does at least one of three
// things, each its own interface: Catalog (list the objects in scope),
// Collector (read counters) and Marker (record a log position). A source
// implements only what it does: the catalog views read no counters, so they
// have no Collect.
type Source interface {
	Name() string
	// Supports returns nil, or an error wrapping dialects.ErrUnsupported (or a
	// *dialects.PrivilegeError) saying why this server cannot give it.
	Supports(s dialects.Server) error
}

// Collector reads counters from its view.
type Collector interface {
	Source
	Collect(ctx context.Context, q dialects.Querier, s dialects.Server, sc Scope) ([]Counter, error)
}

// ObjectCollector reads counters of the catalog's objects by their ids alone:
// the catalog has read the names once, and reading them again per view was
// most of the bytes of a snapshot of a wide catalog.
type ObjectCollector interface {
	Source
	CollectObjects(ctx context.Context, q dialects.Querier, s dialects.Server, objs []Object) ([]Counter, error)
}

// Catalog lists the tables and indexes in scope, with any per-object
// readings made in the same pass (e.g. relation sizes), so the catalog is
// read once a snapshot. A set has one.
type Catalog interface {
	Source
	Catalog(ctx context.Context, q dialects.Querier, s dialects.Server, sc Scope) ([]Object, []Counter, error)
}

// CatalogNote is a Catalog's "objects listed, some readings skipped": the
// snapshot goes on and the report says what was not read and why.
type CatalogNote struct{ Reason string }

func (n *CatalogNote) Error() string { return n.Reason }

// Marker records positions (e.g. the WAL LSN) that interval collectors
// later read between. A marker that fails aborts the snapshot.
type Marker interface {
	Source
	Marks(ctx context.Context, q dialects.Querier, s dialects.Server) (map[string]string, error)
}

// IntervalCollector reads what happened between two snapshots from a log
// (e.g. pg_walinspect between the two LSNs) instead of diffing counters.
type IntervalCollector interface {
	Source
	CollectInterval(ctx context.Context, q dialects.Querier, s dialects.Server, before, after *Snapshot) ([]Counter, error)
}

// Deriver fills numbers the server does not count from those it does, and
// labels them derived (e.g. per-index leaf inserts from table counters).
type Deriver func(d *Delta)

// Set is the sources of one dialect.
type Set struct {
	// Sources in the order a snapshot reads them (marks first where the
	// window's start must precede the rest).
	Sources  []Source
	Interval []IntervalCollector
	Derive   []Deriver
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
	// Vacuum runs the dialect's removal of dead rows for run --vacuum; nil
	// where there is none to run, NoVacuum then says why.
	Vacuum   Vacuumer
	NoVacuum string
}

// Check refuses a set that Take would read wrongly: a source that is none
// of Catalog, Collector and Marker would be skipped without a word, and a
// second catalog would list every object twice.
func (set *Set) Check() error {
	catalogs := 0
	for _, src := range set.Sources {
		_, cat := src.(Catalog)
		_, col := src.(Collector)
		_, ocol := src.(ObjectCollector)
		_, stmts := src.(StatementCollector)
		col = col || ocol || stmts
		_, mark := src.(Marker)
		if !cat && !col && !mark {
			return fmt.Errorf("collectors: source %s reads nothing (not a Catalog, Collector, ObjectCollector or Marker)", src.Name())
		}
		if cat {
			catalogs++
		}
	}
	if catalogs > 1 {
		return fmt.Errorf("collectors: %d catalogs in one set: the objects would be listed twice", catalogs)
	}
	return nil
}

var (
	mu   sync.RWMutex
	sets = map[string]*Set{}
)

// Register installs the source set of a dialect; a set that fails Check is
// a programming error and panics at start-up.
func Register(dialect string, s *Set) {
	if err := s.Check(); err != nil {
		panic(fmt.Sprintf("%s: %v", dialect, err))
	}
	mu.Lock()
	defer mu.Unlock()
	sets[dialect] = s
}

// For returns the source set of a dialect.
func For(dialect string) (*Set, error) {
	mu.RLock()
	defer mu.RUnlock()
	s, ok := sets[dialect]
	if !ok {
		return nil, fmt.Errorf("collectors: no collectors registered for %s", dialect)
	}
	return s, nil
}
