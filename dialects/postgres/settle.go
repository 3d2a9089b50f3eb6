package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// BeforeMeasure runs CHECKPOINT so every measured phase starts the same way:
// the first change to each page after a checkpoint writes a full-page image,
// so without it the FPI share of the WAL depends on when the last one ran.
func (Dialect) BeforeMeasure(ctx context.Context, db *sql.DB, s dialects.Server) []string {
	if !s.Has(CapCheckpoint) {
		return []string{"no CHECKPOINT before the window: " + s.Why(CapCheckpoint) + "; full-page-image bytes depend on the time since the last checkpoint"}
	}
	var holders int
	if err := db.QueryRowContext(ctx, queries.MustGet(Name, "others_measuring", s.VersionNum)).Scan(&holders); err == nil {
		if s.Prop(PropMeasuring) != "" {
			holders-- // this run's own hold
		}
		if holders > 0 {
			return []string{fmt.Sprintf("no CHECKPOINT before the window: %d other writeamp run(s) are measuring on this server, and a checkpoint would let the server remove WAL their windows have yet to read; full-page-image bytes depend on the time since the last checkpoint", holders)}
		}
	}
	if _, err := db.ExecContext(ctx, queries.MustGet(Name, "checkpoint", s.VersionNum)); err != nil {
		return []string{"CHECKPOINT before the window failed: " + err.Error()}
	}
	return nil
}

// Settle makes the workload's statistics visible to the "after" snapshot.
// 15+: the workload's connections ended with pg_stat_force_next_flush(), so
// there is nothing to wait for. 13/14: the old collector receives counts over
// UDP up to 500 ms late, so poll the scoped tables until two readings agree.
func (Dialect) Settle(ctx context.Context, db *sql.DB, s dialects.Server, schemas []string) []string {
	if supportsSharedMemStats(s.VersionNum) {
		return nil
	}
	probe := queries.MustGet(Name, "stats_settle_probe", s.VersionNum)
	var last int64 = -1
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var v int64
		// A fresh connection per reading: the old collector caches a stats
		// snapshot for the whole transaction.
		if err := db.QueryRowContext(ctx, probe, schemas).Scan(&v); err != nil {
			return []string{"waiting for statistics to settle: " + err.Error()}
		}
		if v == last {
			return nil
		}
		last = v
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(600 * time.Millisecond):
		}
	}
	return []string{"statistics were still changing 10 s after the workload (PostgreSQL 13/14 collector): table counts may be short"}
}

// EndSession publishes the session's statistics now instead of up to 10 s
// later (PostgreSQL 15+); must run outside a transaction.
func (Dialect) EndSession(ctx context.Context, conn *sql.Conn, s dialects.Server) error {
	if !supportsSharedMemStats(s.VersionNum) {
		return nil
	}
	_, err := conn.ExecContext(ctx, queries.MustGet(Name, "force_next_flush", s.VersionNum))
	return err
}
