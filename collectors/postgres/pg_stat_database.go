package postgres

import (
	"context"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
)

// PgStatDatabase reads the database's transaction counts, so a report can
// tell when other sessions committed work inside the window.
type PgStatDatabase struct{}

func (PgStatDatabase) Name() string                   { return "pg_stat_database" }
func (PgStatDatabase) Supports(dialects.Server) error { return nil }

func (PgStatDatabase) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, _ collectors.Scope) ([]collectors.Counter, error) {
	var commit, rollback int64
	var reset string
	if err := qr.QueryRowContext(ctx, q("pg_stat_database", s)).Scan(&commit, &rollback, &reset); err != nil {
		return nil, err
	}
	reset = resetMark(reset, s)
	return withReset(reset, []collectors.Counter{
		exact(collectors.DB, "", "transactions_committed", float64(commit), "pg_stat_database.xact_commit (this database, all sessions)", ""),
		exact(collectors.DB, "", "transactions_rolled_back", float64(rollback), "pg_stat_database.xact_rollback (this database, all sessions)", ""),
	}), nil
}
