package collectors

import (
	"context"
	"database/sql"

	"github.com/writeamp/writeamp/dialects"
)

// Vacuumer runs the removal of dead rows a workload left behind
// (PostgreSQL's VACUUM) on the tables in scope, inside a measured window of
// its own, so the collectors read its WAL, pages and full-page images the
// way they read the workload's.
type Vacuumer interface {
	// Vacuum cleans each table and returns what the server says the
	// cleanup did, per table and index (Interval counters), and warnings.
	Vacuum(ctx context.Context, db *sql.DB, s dialects.Server, tables, indexes []Object) ([]Counter, []string, error)
	// WindowMetric names a metric of the vacuum's window in the run
	// ("log_bytes" becomes "vacuum_log_bytes"); false leaves it out.
	WindowMetric(level Level, metric string) (string, bool)
}
