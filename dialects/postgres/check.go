package postgres

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/sqlparse"
)

// Check is PostgreSQL's CheckTraits: DDL is transactional, so an undo runs
// inside a transaction that is compared before it commits, and the
// protocol itself says whether a session is inside a transaction block.
func (Dialect) Check() dialects.CheckTraits { return checkTraits{} }

type checkTraits struct{ dialects.CheckDefaults }

func (checkTraits) UndoInTransaction() bool { return true }

// OpenTransaction reads the session's transaction status from the last
// ReadyForQuery (I idle, T in a block, E failed), which costs no statement.
// https://www.postgresql.org/docs/current/protocol-message-formats.html (ReadyForQuery)
func (checkTraits) OpenTransaction(_ context.Context, conn *sql.Conn, _ dialects.Server) string {
	var status byte
	conn.Raw(func(dc any) error {
		if c, ok := dc.(interface{ Conn() *pgx.Conn }); ok {
			status = c.Conn().PgConn().TxStatus()
		}
		return nil
	})
	switch status {
	case 'T':
		return dialects.OpenTransactionReason
	case 'E':
		return dialects.FailedTransactionReason
	}
	return ""
}

// ObjectExists asks the catalog with one query for every kind of object
// (object_exists answers NULL for a kind it does not know).
func (checkTraits) ObjectExists(ctx context.Context, q dialects.Querier, s dialects.Server, o sqlparse.Object) (bool, error) {
	text, err := queries.Get(Name, "object_exists", s.VersionNum)
	if err != nil {
		return false, err
	}
	var there sql.NullBool
	if err := q.QueryRowContext(ctx, text, o.Kind, o.Schema, o.Name, o.Table, o.Create).Scan(&there); err != nil {
		return false, fmt.Errorf("postgres: %w", err)
	}
	if !there.Valid {
		return false, fmt.Errorf("postgres: no existence query for a %s", o.Kind)
	}
	return there.Bool, nil
}

func (Dialect) LogName() string { return "WAL" }
