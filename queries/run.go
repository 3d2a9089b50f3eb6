package queries

import (
	"context"
	"database/sql"
)

// Querier is what the helpers below run a block on: *sql.DB, *sql.Conn and
// *sql.Tx (the same methods as dialects.Querier, which sits above this
// package).
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Row is QueryRow's result: the row, or the lookup's error, which Scan
// returns as sql.Row's Scan returns a query's. A call site reads the same
// as with QueryRowContext, and a block missing for the server's version
// becomes the caller's error instead of a panic.
type Row struct {
	row *sql.Row
	err error
}

// Scan is sql.Row's Scan, or the lookup's error.
func (r Row) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	return r.row.Scan(dest...)
}

// QueryRow runs the named block's variant for the version.
func QueryRow(ctx context.Context, q Querier, dialect, name string, version int, args ...any) Row {
	text, err := Get(dialect, name, version)
	if err != nil {
		return Row{err: err}
	}
	return Row{row: q.QueryRowContext(ctx, text, args...)}
}

// Query runs the named block's variant for the version.
func Query(ctx context.Context, q Querier, dialect, name string, version int, args ...any) (*sql.Rows, error) {
	text, err := Get(dialect, name, version)
	if err != nil {
		return nil, err
	}
	return q.QueryContext(ctx, text, args...)
}

// Exec runs the named block's variant for the version.
func Exec(ctx context.Context, q Querier, dialect, name string, version int, args ...any) (sql.Result, error) {
	text, err := Get(dialect, name, version)
	if err != nil {
		return nil, err
	}
	return q.ExecContext(ctx, text, args...)
}
