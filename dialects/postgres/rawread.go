package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/stdlib"
)

// ErrNotPgx is ReadBytesInto's answer on a connection of another driver
// (sqlmock in the tests): the caller reads through database/sql instead.
var ErrNotPgx = errors.New("not a pgx connection")

// ReadBytesInto runs a query that returns one bytea value and copies it
// straight into dst, asking for the binary result format and reading the
// value where pgconn received it. database/sql's path copies each value
// twice more (the driver's slice, then the caller's), which made reading WAL
// segments markedly slower (measured with make bench, docs/performance.md). args
// are sent as text, their types inferred by the server as a prepared
// statement's would be. It returns the bytes copied; a value longer than
// dst, NULL or a row count other than one is an error.
func ReadBytesInto(ctx context.Context, conn *sql.Conn, query string, args []string, dst []byte) (int, error) {
	params := make([][]byte, len(args))
	for i, a := range args {
		params[i] = []byte(a)
	}
	n, rows := 0, 0
	err := conn.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return ErrNotPgx
		}
		rr := sc.Conn().PgConn().ExecParams(ctx, query, params, nil, nil, []int16{1})
		var cerr error
		for rr.NextRow() {
			rows++
			v := rr.Values()
			switch {
			case cerr != nil:
			case len(v) != 1 || v[0] == nil:
				cerr = fmt.Errorf("expected one bytea value, got %d columns (NULL: %v)", len(v), len(v) == 1)
			case len(v[0]) > len(dst):
				cerr = fmt.Errorf("%d bytes returned, %d asked", len(v[0]), len(dst))
			default:
				n = copy(dst, v[0])
			}
		}
		if _, err := rr.Close(); err != nil {
			return err
		}
		if cerr == nil && rows != 1 {
			cerr = fmt.Errorf("expected one row, got %d", rows)
		}
		return cerr
	})
	return n, err
}
