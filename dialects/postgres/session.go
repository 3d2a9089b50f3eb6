package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5/stdlib"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// SessionID is the connection's backend pid (pg_stat_activity.pid), so the
// wait sampler can tell the workload's sessions from every other. pgx learns
// it from the server's BackendKeyData at connect, so asking sends no
// statement: pg_backend_pid() would be one more transaction that
// pg_stat_database counts inside the window.
func (Dialect) SessionID(ctx context.Context, conn *sql.Conn) (string, error) {
	var pid uint32
	err := conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("postgres: session id: not a pgx connection (%T)", dc)
		}
		pid = c.Conn().PgConn().PID()
		return nil
	})
	if err != nil {
		return "", err
	}
	return strconv.FormatUint(uint64(pid), 10), nil
}

// XactIDStmt reads the transaction's id without assigning one (13+), so an
// operation that wrote nothing is not given a commit record by asking.
func (Dialect) XactIDStmt(s dialects.Server) (string, error) {
	return queries.Get(Name, "current_xact_id", s.VersionNum)
}
