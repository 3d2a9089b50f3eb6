package sqlserver

import (
	"context"
	"database/sql"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// BeforeMeasure runs CHECKPOINT so every measured phase starts from clean
// pages: the window's physical writes and lazy-writer work are then the
// workload's own, and in SIMPLE recovery the log is truncated first, so
// sys.fn_dblog reads a short active log that the window's records fill.
func (Dialect) BeforeMeasure(ctx context.Context, db *sql.DB, s dialects.Server) []string {
	if !s.Has(CapCheckpoint) {
		return []string{"no CHECKPOINT before the window: " + s.Why(CapCheckpoint) + "; pages dirtied before the window may be written inside it"}
	}
	if _, err := queries.Exec(ctx, db, Name, "checkpoint", s.VersionNum); err != nil {
		return []string{"CHECKPOINT before the window failed: " + err.Error()}
	}
	return nil
}

// Settle has nothing to wait for: sys.dm_db_index_operational_stats and the
// log counters are updated as the statements run, not published later. Ghost
// cleanup, which removes deleted rows in the background, may still run after
// the window; its work is counted only if it ran before the "after" snapshot,
// so the report says so when the workload deleted rows.
func (Dialect) Settle(ctx context.Context, db *sql.DB, s dialects.Server, schemas []string) []string {
	return []string{"SQL Server ghost cleanup removes deleted rows in the background every few seconds: its log and page writes are in the window only if it ran before the \"after\" snapshot"}
}
