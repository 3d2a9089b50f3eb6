package dialects

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// SchemaEnterer is implemented by dialects that can make unqualified names
// on one connection mean one schema: check applies a migration written for
// the application's tables to the built-in workload's copy of them this
// way, and names no dialect to do it.
type SchemaEnterer interface {
	// EnterSchema makes unqualified names on conn mean schema and returns
	// what puts conn back as it was.
	EnterSchema(ctx context.Context, conn *sql.Conn, s Server, schema string) (leave func(context.Context) error, err error)
	// HowSchemaEntered names the way, for reports ("search_path").
	HowSchemaEntered() string
}

// SchemaEntererOf is a registered dialect's SchemaEnterer.
func SchemaEntererOf(name string) (SchemaEnterer, error) {
	return optional[SchemaEnterer](name, fmt.Sprintf("check: no way to apply a migration inside the workload's schema on %s", name))
}

// ConnExec runs q on conn, the error prefixed with what it was for.
func ConnExec(ctx context.Context, conn *sql.Conn, what, q string, args ...any) error {
	if _, err := conn.ExecContext(ctx, q, args...); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// FillSchema puts name where a query's {{schema}} placeholder is.
func FillSchema(q, name string) string { return strings.ReplaceAll(q, "{{schema}}", name) }
