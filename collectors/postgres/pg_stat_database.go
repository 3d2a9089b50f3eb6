package postgres

import (
	"context"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// PgStatDatabase reads the database's transaction counts, so a report can
// tell when other sessions committed work inside the window.
type PgStatDatabase struct{}

func (PgStatDatabase) Name() string                   { return "pg_stat_database" }
func (PgStatDatabase) Supports(dialects.Server) error { return nil }

func (PgStatDatabase) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, _ collectors.Scope) ([]collectors.Counter, error) {
	var commit, rollback, deadlocks, temp int64
	var reset string
	if err := queries.QueryRow(ctx, qr, pg.Name, "pg_stat_database", s.VersionNum).Scan(&commit, &rollback, &deadlocks, &temp, &reset); err != nil {
		return nil, err
	}
	reset = resetMark(reset, s)
	return withReset(reset, []collectors.Counter{
		exact(collectors.DB, "", result.TransactionsCommitted, float64(commit), "pg_stat_database.xact_commit (this database, all sessions)", ""),
		exact(collectors.DB, "", result.TransactionsRolledBack, float64(rollback), "pg_stat_database.xact_rollback (this database, all sessions)", ""),
		{Key: collectors.NewKey(collectors.DB, "", result.Deadlocks), Value: float64(deadlocks), Exactness: result.Approx, Source: "pg_stat_database.deadlocks (this database, all sessions; not yet held to ground truth)"},
		{Key: collectors.NewKey(collectors.DB, "", result.TempBytes), Value: float64(temp), Exactness: result.Approx, Source: "pg_stat_database.temp_bytes (this database, all sessions; not yet held to ground truth)"},
	}), nil
}
