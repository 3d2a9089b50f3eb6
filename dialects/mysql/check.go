package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/sqlparse"
)

// Check is MySQL/MariaDB's CheckTraits: DDL commits at once, a schema is a
// database (so undo records are server-wide), check's queries take the
// connected database as parameters, and the check lock is GET_LOCK.
func (Dialect) Check() dialects.CheckTraits { return checkTraits{} }

type checkTraits struct{ dialects.CheckDefaults }

// QueryArgs binds the DSN's database to every ? of the query (check_catalog
// and check_tables ask "? = ” OR FIND_IN_SET(…, ?)").
func (checkTraits) QueryArgs(s dialects.Server, text string) []any {
	var args []any
	for range strings.Count(text, "?") {
		args = append(args, s.Database)
	}
	return args
}

// HashColumns quotes each value as a literal first, so NULL, ” and a
// value with a separator in it hash differently.
// https://mariadb.com/kb/en/quote/
func (checkTraits) HashColumns(cols string) string {
	parts := strings.Split(cols, ",")
	for i, p := range parts {
		parts[i] = "QUOTE(" + p + ")"
	}
	return strings.Join(parts, ",")
}

func (checkTraits) QuoteSchema(name string) string { return QuoteIdent(name) }

func (checkTraits) DDLCommitsAtOnce() bool { return true }

// OpenTransaction asks @@in_transaction (MariaDB), or INNODB_TRX where the
// server has no such variable (MySQL).
func (checkTraits) OpenTransaction(ctx context.Context, conn *sql.Conn, s dialects.Server) string {
	var in bool
	err := fmt.Errorf("no in_transaction query")
	for _, name := range []string{"in_transaction", "in_transaction_innodb"} {
		text, e := queries.Get(Name, name, s.VersionNum)
		if e != nil {
			continue
		}
		if err = conn.QueryRowContext(ctx, text).Scan(&in); err == nil {
			break
		}
	}
	if err == nil && in {
		return dialects.OpenTransactionReason
	}
	return ""
}

// TakeLock is GET_LOCK, which waits on the server for up to wait seconds
// and answers 1 (taken), 0 (timed out) or NULL (an error).
func (checkTraits) TakeLock(ctx context.Context, conn *sql.Conn, text string, wait time.Duration) (bool, bool, error) {
	var n sql.NullInt64
	err := conn.QueryRowContext(ctx, text, int(wait.Seconds())).Scan(&n)
	return n.Valid && n.Int64 == 1, true, err
}

// ObjectExists asks the kind's own information_schema query, which counts
// matches with and without letter case (loose, exact).
func (checkTraits) ObjectExists(ctx context.Context, q dialects.Querier, s dialects.Server, o sqlparse.Object) (bool, error) {
	text, err := queries.Get(Name, "exists_"+o.Kind, s.VersionNum)
	if err != nil {
		return false, err
	}
	args := []any{o.Name, o.Schema, o.Name}
	if o.Table != "" {
		args = append(args, o.Table)
	}
	var loose, exact int64
	if err := q.QueryRowContext(ctx, text, args...).Scan(&loose, &exact); err != nil {
		return false, fmt.Errorf("mysql: %w", err)
	}
	switch o.Kind {
	case sqlparse.ObjIndex, sqlparse.ObjColumn, sqlparse.ObjProcedure, sqlparse.ObjFunction, sqlparse.ObjEvent:
		return loose > 0, nil // names the server compares without case
	}
	if exact == 0 && loose > 0 {
		return false, fmt.Errorf("a %s whose name differs only in letter case exists: whether the server takes them as one depends on lower_case_table_names", o.Kind)
	}
	return exact > 0, nil
}

func (Dialect) LogName() string { return "redo" }

func (Dialect) SchemasAreDatabases() bool { return true }
