package oracle

import (
	"context"
	"database/sql"

	"github.com/writeamp/writeamp/dialects"
)

// BeforeMeasure does nothing: Oracle writes no full-page images outside
// backup mode, so the time since the last checkpoint does not change what
// the window's redo counts, and ALTER SYSTEM CHECKPOINT would need a
// privilege the measurement has no other use for.
func (Dialect) BeforeMeasure(ctx context.Context, db *sql.DB, s dialects.Server) []string {
	return nil
}

// Settle waits for nothing (V$ counters move as the work is done), but says
// what can still fall outside the window: delayed block cleanout, where the
// next reader of a block changed by a committed transaction cleans it and
// generates redo of its own, possibly after the "after" snapshot.
func (Dialect) Settle(ctx context.Context, db *sql.DB, s dialects.Server, schemas []string) []string {
	if IsStandby(s) {
		// Redo Apply is not waited for: the applied redo may lack the tail.
		return []string{"Oracle physical standby: the window's end does not wait for Redo Apply to catch up, so the redo applied may miss the primary's last redo (see apply lag)"}
	}
	return []string{"Oracle delayed block cleanout: blocks the workload changed may be cleaned (and generate redo) by a later reader, after the window"}
}
