package oracle

import (
	"context"
	"database/sql"

	"github.com/writeamp/writeamp/queries"
)

// SessionID is the connection's server session id, V$SESSION.SID, so the wait
// samplers can tell the workload's sessions from every other.
func (Dialect) SessionID(ctx context.Context, conn *sql.Conn) (string, error) {
	var id string
	if err := queries.QueryRow(ctx, conn, Name, "session_id", 0).Scan(&id); err != nil {
		return "", err
	}
	return id, nil
}
