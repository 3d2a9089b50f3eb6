package oracle

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// EnterSchema sets the session's CURRENT_SCHEMA to the workload's user
// and, on leaving, back to the one it had.
func (Dialect) EnterSchema(ctx context.Context, conn *sql.Conn, s dialects.Server, schema string) (func(context.Context) error, error) {
	cur, err := queries.Get(Name, "current_schema", s.VersionNum)
	if err != nil {
		return nil, err
	}
	set, err := queries.Get(Name, "set_current_schema", s.VersionNum)
	if err != nil {
		return nil, err
	}
	var prev string
	if err := conn.QueryRowContext(ctx, cur).Scan(&prev); err != nil {
		return nil, fmt.Errorf("read the current schema: %w", err)
	}
	if err := dialects.ConnExec(ctx, conn, "set the current schema", dialects.FillSchema(set, schema)); err != nil {
		return nil, err
	}
	return func(ctx context.Context) error {
		return dialects.ConnExec(ctx, conn, "set the current schema back", dialects.FillSchema(set, QuoteIdent(prev)))
	}, nil
}

func (Dialect) HowSchemaEntered() string { return "ALTER SESSION SET CURRENT_SCHEMA" }

func (Dialect) LogName() string { return "redo" }
