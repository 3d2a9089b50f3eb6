package dialects

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/sqlparse"
)

// CheckTraits is what `check` must know of a dialect beyond the texts of
// its queries (queries/<dialect>/check.sql): how those queries bind the
// connected database, how a row is made comparable, what a transaction can
// undo there, how the check lock answers and where undo records live.
// check reaches it through CheckOf and names no dialect; a dialect that
// differs from CheckDefaults somewhere embeds it and overrides that.
type CheckTraits interface {
	// QueryArgs are the arguments of one of check's own queries on s.
	QueryArgs(s Server, text string) []any
	// HashColumns is a table's column list (quoted names, comma-separated,
	// as check_tables lists them) as the table_checksum query hashes it.
	HashColumns(cols string) string
	// QuoteSchema quotes the name of an undo record's schema (or database)
	// for the {{schema}} of check's queries.
	QuoteSchema(name string) string
	// OpenTransaction says why conn is inside a transaction block: BEGIN
	// without COMMIT, or a block a failed statement aborted; "" when it is
	// not, or when the dialect cannot tell.
	OpenTransaction(ctx context.Context, conn *sql.Conn, s Server) string
	// UndoInTransaction says an undo can run inside one transaction and be
	// compared with the database before it commits (transactional DDL).
	UndoInTransaction() bool
	// DDLCommitsAtOnce says a DDL statement commits on its own, so an undo
	// must be judged before any of it runs.
	DDLCommitsAtOnce() bool
	// TakeLock runs check_lock (text) on conn. waited says the server
	// itself waited up to wait, so the caller need not ask again.
	TakeLock(ctx context.Context, conn *sql.Conn, text string, wait time.Duration) (got, waited bool, err error)
	// ObjectExists says whether what an IF [NOT] EXISTS names is there.
	ObjectExists(ctx context.Context, q Querier, s Server, o sqlparse.Object) (bool, error)
}

// CheckOf is a registered dialect's CheckTraits, CheckDefaults when the
// dialect keeps to them all.
func CheckOf(name string) CheckTraits {
	if d, ok := Get(name); ok {
		if c, ok := d.(interface{ Check() CheckTraits }); ok {
			return c.Check()
		}
	}
	return CheckDefaults{}
}

// CheckDefaults is check on a dialect whose queries bind nothing, whose
// rows hash as listed, whose names quote as ANSI SQL says, and that asks
// its in_transaction query (when it has one) for an open transaction.
type CheckDefaults struct{}

func (CheckDefaults) QueryArgs(Server, string) []any { return nil }

func (CheckDefaults) HashColumns(cols string) string { return cols }

func (CheckDefaults) QuoteSchema(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

func (CheckDefaults) OpenTransaction(ctx context.Context, conn *sql.Conn, s Server) string {
	text, err := queries.Get(s.Dialect, "in_transaction", s.VersionNum)
	if err != nil {
		return "" // no way to ask (SQL Server, Oracle: each statement is sent on its own)
	}
	var in bool
	if conn.QueryRowContext(ctx, text).Scan(&in) == nil && in {
		return OpenTransactionReason
	}
	return "" // the question itself failed: the catalog comparison still holds the result
}

func (CheckDefaults) UndoInTransaction() bool { return false }

func (CheckDefaults) DDLCommitsAtOnce() bool { return false }

func (CheckDefaults) TakeLock(ctx context.Context, conn *sql.Conn, text string, _ time.Duration) (bool, bool, error) {
	var got bool
	err := conn.QueryRowContext(ctx, text).Scan(&got)
	return got, false, err
}

func (CheckDefaults) ObjectExists(_ context.Context, _ Querier, s Server, _ sqlparse.Object) (bool, error) {
	return false, fmt.Errorf("%s: existence is not asked (its statements are not inverted)", s.Dialect)
}

// The reasons OpenTransaction gives, one wording for every dialect.
const (
	OpenTransactionReason   = "an open transaction (BEGIN or START TRANSACTION without COMMIT)"
	FailedTransactionReason = "a failed transaction block (a statement inside BEGIN … failed, and no ROLLBACK or COMMIT followed)"
)
