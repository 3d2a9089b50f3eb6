package collectors

import (
	"context"
	"database/sql"
	"sync"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/result"
)

// A TimelineSource reads a dialect's cheap whole-server counters (log
// position, rows changed, commits) in one short statement, so a long window
// can be sampled every --interval and shown over time. Unlike a snapshot it
// reads no catalog and no per-object view, except where a series is scoped
// and bounded (PostgreSQL's HOT updates over the scope's tables).
type TimelineSource interface {
	// Series says what Read returns on this server for these objects, and
	// why anything else of a timeline cannot be sampled here.
	Series(s dialects.Server, objs []Object) (series []result.SampleSeries, notes []string)
	// Read takes one reading on the sampler's own connection: the series'
	// cumulative values, keyed by series name. It must write nothing and
	// count as no commit of the measured server.
	Read(ctx context.Context, conn *sql.Conn, s dialects.Server, objs []Object) (map[string]float64, error)
}

var (
	tlMu      sync.RWMutex
	timelines = map[string]TimelineSource{}
)

// RegisterTimeline installs the timeline source of a dialect.
func RegisterTimeline(dialect string, t TimelineSource) {
	tlMu.Lock()
	defer tlMu.Unlock()
	timelines[dialect] = t
}

// TimelineFor returns the timeline source of a dialect, false when it has none.
func TimelineFor(dialect string) (TimelineSource, bool) {
	tlMu.RLock()
	defer tlMu.RUnlock()
	t, ok := timelines[dialect]
	return t, ok
}
