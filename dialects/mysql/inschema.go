package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// EnterSchema USEs the workload's database (a MySQL schema is a database)
// and, on leaving, the connection's own again.
func (Dialect) EnterSchema(ctx context.Context, conn *sql.Conn, s dialects.Server, schema string) (func(context.Context) error, error) {
	cur, err := queries.Get(Name, "current_database", s.VersionNum)
	if err != nil {
		return nil, err
	}
	use, err := queries.Get(Name, "use_database", s.VersionNum)
	if err != nil {
		return nil, err
	}
	var prev sql.NullString
	if err := conn.QueryRowContext(ctx, cur).Scan(&prev); err != nil {
		return nil, fmt.Errorf("read the current database: %w", err)
	}
	if err := dialects.ConnExec(ctx, conn, "USE the workload's database", dialects.FillSchema(use, QuoteIdent(schema))); err != nil {
		return nil, err
	}
	return func(ctx context.Context) error {
		if prev.Valid {
			return dialects.ConnExec(ctx, conn, "USE the connection's database again", dialects.FillSchema(use, QuoteIdent(prev.String)))
		}
		// A connection cannot go back to "no database": this one is
		// dropped from the pool instead of lending the workload's
		// database to its next user.
		conn.Raw(func(any) error { return driver.ErrBadConn })
		return nil
	}, nil
}

func (Dialect) HowSchemaEntered() string { return "USE of the workload's database" }
