// Package workloads defines what a built-in workload provides and the shared
// machinery: a registry, per-operation latency histograms merged across
// workers, and retry accounting.
package workloads

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
)

// Meta describes a workload.
type Meta struct {
	Name        string
	Description string
	Variants    []string // in the order a default run measures them
	// MainOperation is what results are normalized by (e.g. "refreshes").
	MainOperation string
	Params        map[string]any
	// Assumptions are the modelling choices the workload's sources leave
	// open, each naming the flag that changes it.
	Assumptions []string
}

// Progress is told of completed operations.
type Progress interface{ Add(n int) }

// NoProgress discards progress.
type NoProgress struct{}

func (NoProgress) Add(int) {}

// Stats is what a run did, as the driver counted it.
type Stats struct {
	Operations map[string]int64
	Errors     map[string]int64
	Retries    int64
	Latency    map[string]*Histogram
	Elapsed    time.Duration
	// Statements counts the rows each DML statement name changed; dialects
	// without per-index counters derive index writes from it (InnoDB rules).
	Statements map[string]int64
}

// Workload is a built-in write workload with variants.
type Workload interface {
	Meta() Meta
	// Prepare creates the variant's objects in a schema the workload owns.
	Prepare(ctx context.Context, db *sql.DB, s dialects.Server, variant string) error
	// Scope is what the collectors should read: the workload's own objects.
	Scope() collectors.Scope
	// TotalOperations is the number of operations Run will perform (for progress).
	TotalOperations() int64
	Run(ctx context.Context, db *sql.DB, s dialects.Server, p Progress) (Stats, error)
	// Cleanup drops what Prepare created; it never touches anything else.
	Cleanup(ctx context.Context, db *sql.DB) error
}

// Effect describes what a DML statement of a workload writes, for dialects
// that derive per-index writes from the statements (InnoDB).
type Effect struct {
	Table   string
	Kind    string   // "insert", "update", "delete"
	Columns []string // for updates: the columns set (lower case)
}

// EffectDescriber is implemented by workloads that can say what each of
// their statements writes; Stats.Statements counts rows per statement name.
type EffectDescriber interface {
	Effects() map[string]Effect
}

// LeftoverCleaner is implemented by workloads that can find what an earlier
// run of theirs left behind (a crash, a kill -9) and drop it: dropped lists
// what went, kept what was found but is not provably theirs to drop.
type LeftoverCleaner interface {
	CleanLeftovers(ctx context.Context, db *sql.DB, s dialects.Server) (dropped, kept []string, err error)
}

// Keeper is implemented by workloads that can keep their objects for
// inspection (--keep): KeepObjects, called before the first Prepare, makes
// them marked as kept, never dropped automatically by a later run, and
// Cleanup then releases them without dropping them.
type Keeper interface {
	KeepObjects()
}

// ErrNotOwned is returned when an object with the workload's name exists but
// was not created by writeamp: it is left alone.
var ErrNotOwned = errors.New("exists but was not created by writeamp; refusing to touch it")

var (
	mu       sync.RWMutex
	registry = map[string]func() Workload{}
)

// Register adds a workload constructor.
func Register(name string, f func() Workload) {
	mu.Lock()
	defer mu.Unlock()
	registry[name] = f
}

// New returns a fresh workload by name.
func New(name string) (Workload, error) {
	mu.RLock()
	defer mu.RUnlock()
	f, ok := registry[name]
	if !ok {
		var names []string
		for n := range registry {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("unknown workload %q (known: %s)", name, strings.Join(names, ", "))
	}
	return f(), nil
}

// Retryable reports whether an error is a serialization failure or deadlock
// that the operation should be retried for, by SQLSTATE or vendor code.
func Retryable(err error) bool {
	var st interface{ SQLState() string }
	if errors.As(err, &st) {
		switch st.SQLState() {
		case "40001", "40P01":
			return true
		}
	}
	var num interface{ SQLErrorNumber() int32 } // go-mssqldb
	if errors.As(err, &num) && num.SQLErrorNumber() == 1205 {
		return true
	}
	msg := err.Error()
	// MySQL/MariaDB 1213 deadlock, 1205 lock wait timeout; Oracle ORA-00060.
	return strings.Contains(msg, "Error 1213") || strings.Contains(msg, "Error 1205") || strings.Contains(msg, "ORA-00060")
}

// ConnectionLost reports whether an error means the session is gone (the
// server restarted or shut down, the connection was killed or dropped):
// the operation cannot succeed on this connection, so the run stops at once
// instead of counting failures.
func ConnectionLost(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, sql.ErrConnDone) || errors.Is(err, driver.ErrBadConn) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	var st interface{ SQLState() string }
	if errors.As(err, &st) {
		code := st.SQLState()
		// 08: connection exception; 57P01-03: admin shutdown, crash shutdown, cannot connect now.
		if strings.HasPrefix(code, "08") || code == "57P01" || code == "57P02" || code == "57P03" {
			return true
		}
	}
	msg := err.Error()
	for _, s := range []string{"conn closed", "connection reset", "broken pipe", "invalid connection", "bad connection", "server has gone away", "Lost connection"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
