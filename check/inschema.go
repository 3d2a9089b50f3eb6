package check

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"github.com/writeamp/writeamp/dialects"
	"strings"
)

// inSchema makes unqualified names on conn mean the built-in workload's
// own schema, so a migration written for the application's tables
// (CREATE INDEX … ON one of its tables …) applies to the workload's
// copy of them, and returns what puts conn back. Each dialect has its own
// way (queries/<dialect>/check.sql):
//
//	PostgreSQL  search_path = schema, public
//	MySQL       USE schema (the workload's schema is a database)
//	Oracle      ALTER SESSION SET CURRENT_SCHEMA (the workload's user)
//	SQL Server  EXECUTE AS a user without login whose default schema it is
func (g *Gate) inSchema(ctx context.Context, conn *sql.Conn, schema string) (leave func(context.Context) error, err error) {
	must := func(name string) string {
		q, qerr := g.ownSQL(name)
		if qerr != nil && err == nil {
			err = qerr
		}
		return q
	}
	exec := func(ctx context.Context, what, q string, args ...any) error {
		if _, err := conn.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		return nil
	}
	fill := func(q, name string) string { return strings.ReplaceAll(q, "{{schema}}", name) }
	switch d := g.server().Dialect; d {
	case "postgres":
		set, reset := must("set_search_path"), must("reset_search_path")
		if err != nil {
			return nil, err
		}
		if err := exec(ctx, "set search_path", set, schema+", public"); err != nil {
			return nil, err
		}
		return func(ctx context.Context) error { return exec(ctx, "reset search_path", reset) }, nil
	case "mysql":
		cur, use := must("current_database"), must("use_database")
		if err != nil {
			return nil, err
		}
		q, err := dialects.QuoterOf(d)
		if err != nil {
			return nil, err
		}
		backquote := q.QuoteIdent
		var prev sql.NullString
		if err := conn.QueryRowContext(ctx, cur).Scan(&prev); err != nil {
			return nil, fmt.Errorf("read the current database: %w", err)
		}
		if err := exec(ctx, "USE the workload's database", fill(use, backquote(schema))); err != nil {
			return nil, err
		}
		return func(ctx context.Context) error {
			if prev.Valid {
				return exec(ctx, "USE the connection's database again", fill(use, backquote(prev.String)))
			}
			// A connection cannot go back to "no database": this one is
			// dropped from the pool instead of lending the workload's
			// database to its next user.
			conn.Raw(func(any) error { return driver.ErrBadConn })
			return nil
		}, nil
	case "oracle":
		cur, set := must("current_schema"), must("set_current_schema")
		if err != nil {
			return nil, err
		}
		var prev string
		if err := conn.QueryRowContext(ctx, cur).Scan(&prev); err != nil {
			return nil, fmt.Errorf("read the current schema: %w", err)
		}
		if err := exec(ctx, "set the current schema", fill(set, schema)); err != nil {
			return nil, err
		}
		return func(ctx context.Context) error {
			return exec(ctx, "set the current schema back", fill(set, `"`+strings.ReplaceAll(prev, `"`, `""`)+`"`))
		}, nil
	case "sqlserver":
		create, enter, back, drop := must("schema_user_create"), must("schema_user_enter"), must("schema_user_leave"), must("schema_user_drop")
		if err != nil {
			return nil, err
		}
		dropUser := func(ctx context.Context) error {
			return exec(ctx, "drop the user the migration ran as", fill(drop, schema))
		}
		if err := exec(ctx, "create a user without login whose default schema is the workload's (needs ALTER ANY USER and ALTER ANY ROLE, or db_owner)", fill(create, schema)); err != nil {
			dropUser(context.WithoutCancel(ctx)) // half-created: the user may exist without its roles
			return nil, err
		}
		if err := exec(ctx, "EXECUTE AS the workload's user", fill(enter, schema)); err != nil {
			dropUser(context.WithoutCancel(ctx))
			return nil, err
		}
		return func(ctx context.Context) error {
			err := exec(ctx, "REVERT", back)
			if derr := dropUser(ctx); err == nil {
				err = derr
			}
			return err
		}, nil
	default:
		return nil, fmt.Errorf("check: no way to apply a migration inside the workload's schema on %s", d)
	}
}
