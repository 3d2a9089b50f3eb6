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

// Instrument creates pg_walinspect for the window when it is available but not
// installed and this login may; undo drops it again, so the database is left
// as it was found.
func (Dialect) Instrument(ctx context.Context, db *sql.DB, s *dialects.Server) (func(context.Context) error, []string) {
	if !s.Has(CapCreateWalinspect) {
		return nil, nil
	}
	if err := execPublished(ctx, db, *s, queries.MustGet(Name, "create_walinspect", s.VersionNum)); err != nil {
		s.Set(CapWalinspect, false, "could not create pg_walinspect: "+err.Error())
		return nil, []string{"pg_walinspect: CREATE EXTENSION failed: " + err.Error()}
	}
	var schema string
	if err := db.QueryRowContext(ctx, queries.MustGet(Name, "walinspect_schema", s.VersionNum)).Scan(&schema); err == nil {
		s.SetProp(PropWalinspectSchema, schema)
	}
	undo := func(ctx context.Context) error {
		if err := execPublished(ctx, db, *s, queries.MustGet(Name, "drop_walinspect", s.VersionNum)); err != nil {
			return fmt.Errorf("postgres: drop the pg_walinspect extension writeamp created: %w", err)
		}
		return nil
	}
	return undo, []string{"pg_walinspect was created for the measurement and is dropped afterwards"}
}

// execPublished runs a statement on its own connection and publishes that
// session's statistics right away, so its WAL is not counted late inside a
// measured window.
func execPublished(ctx context.Context, db *sql.DB, s dialects.Server, stmt string) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, stmt); err != nil {
		return err
	}
	return Dialect{}.EndSession(ctx, conn, s)
}
