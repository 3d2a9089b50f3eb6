package sqlserver

import (
	"context"
	"database/sql"
	"fmt"
	"time"

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

// Settle waits for nothing of this database's own: sys.dm_db_index_operational_stats
// and the log counters are updated as the statements run, not published
// later. Its copies are another matter (awaitCopies). Ghost
// cleanup, which removes deleted rows in the background, may still run after
// the window; its work is counted only if it ran before the "after" snapshot,
// so the report says so when the workload deleted rows.
func (Dialect) Settle(ctx context.Context, db *sql.DB, s dialects.Server, schemas []string) []string {
	return append(awaitCopies(ctx, db, s),
		"SQL Server ghost cleanup removes deleted rows in the background every few seconds: its log and page writes are in the window only if it ran before the \"after\" snapshot")
}

// CopiesBound is how long a window waits, after the workload, for the
// database's copies to be sent and to redo the log written so far.
var CopiesBound = 10 * time.Second

// awaitCopies waits until every secondary of a primary (or a secondary
// itself) reports no log left to send or to redo, so the "after" snapshot's
// bytes sent and redone include the workload's tail. A queue the server
// does not report (NULL) is not waited for. A copy still behind at the bound
// is named; one that cannot be read leaves it to the collectors to say so.
func awaitCopies(ctx context.Context, db *sql.DB, s dialects.Server) []string {
	if !(s.Has(CapAGPrimary) || s.Has(CapAGSecondary)) || !s.Has(CapViewServerState) || s.Flavor == FlavorAzureSQLDatabase {
		return nil
	}
	return dialects.AwaitCopies(ctx, CopiesBound, "copies", "their bytes sent and redone miss the tail", func(ctx context.Context) ([]string, error) {
		return copiesBehind(ctx, db, s)
	})
}

func copiesBehind(ctx context.Context, db *sql.DB, s dialects.Server) ([]string, error) {
	rows, err := queries.Query(ctx, db, Name, "hadr_tail", s.VersionNum)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var late []string
	for rows.Next() {
		var name string
		var unsent, unredone sql.NullInt64
		if err := rows.Scan(&name, &unsent, &unredone); err != nil {
			return nil, err
		}
		if unsent.Int64 > 0 || unredone.Int64 > 0 {
			late = append(late, fmt.Sprintf("%s (%d KB not sent, %d KB not redone)", name, unsent.Int64, unredone.Int64))
		}
	}
	return late, rows.Err()
}
