package collectors

import (
	"context"
	"database/sql"
	"time"

	"github.com/writeamp/writeamp/dialects"
)

// A Sampler reads a view again and again while the window is open, from a
// connection of its own, for what no counter keeps: what the workload's
// sessions wait on (PostgreSQL keeps no cumulative per-session wait
// counters; pg_stat_activity shows only the wait of this instant).
type Sampler interface {
	Name() string
	Supports(s dialects.Server) error
	// Start begins sampling; Stop of the returned Sampling ends it and
	// returns what was seen as interval counters (approx: sampled).
	Start(ctx context.Context, db *sql.DB, s dialects.Server, t SampleTarget) (Sampling, error)
}

// SampleTarget says which sessions are the workload's and how often to look.
type SampleTarget struct {
	// ApplicationName of the workload's sessions; "" samples every other
	// session of the database (a wrapped command's sessions are unknown).
	ApplicationName string
	// Every is the sampling period (10 ms if zero).
	Every time.Duration
	// Operation names the operation a session's statement belongs to
	// (nil: not told apart), so waits can be shown per operation.
	Operation func(query string) string
	// Sessions, when set, tells the workload's sessions by their server
	// session id (PostgreSQL pid, MariaDB/MySQL processlist id) and names
	// the operation each is running now; it overrides ApplicationName and
	// Operation. A built-in workload's runner fills it as workers connect.
	Sessions func(id string) (op string, ours bool)
}

// Sampling is a sampler that is running.
type Sampling interface {
	Stop() ([]Counter, error)
}

// NoSampling is the sampling of a server with nothing to sample (a
// replica sampler on a server that replicates from nobody): it reads
// nothing and reports nothing, so no report lists it missing.
type NoSampling struct{}

func (NoSampling) Stop() ([]Counter, error) { return nil, nil }
