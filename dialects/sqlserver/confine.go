package sqlserver

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"

	mssql "github.com/microsoft/go-mssqldb"

	"github.com/writeamp/writeamp/dialects"
)

// OpenAs connects like Open, as another login ("" keeps the DSN's: the
// confined session impersonates a user on a connection of its own).
func (d Dialect) OpenAs(ctx context.Context, dsn, user, password, database string) (*sql.DB, error) {
	cfg, err := Config(dsn)
	if err != nil {
		return nil, err
	}
	if user != "" {
		cfg.User, cfg.Password = user, password
	}
	if database != "" {
		cfg.Database = database
	}
	db := sql.OpenDB(mssql.NewConnectorConfig(cfg))
	if err := dialects.PingWithin(ctx, db, ConnectTimeout); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// Confine implements dialects.Confiner: a user without login that owns the
// workload's schema, impersonated WITH NO REVERT on a session of its own.
func (d Dialect) Confine(ctx context.Context, admin *sql.Conn, s dialects.Server, schema string, open dialects.OpenAs) (c *dialects.Confined, err error) {
	get := func(name string, fill ...string) (string, error) { return dialects.Filled(Name, s, name, fill...) }
	var owner sql.NullString
	q, err := get("confine_owner")
	if err != nil {
		return nil, err
	}
	if err := admin.QueryRowContext(ctx, q, schema).Scan(&owner); err != nil {
		return nil, fmt.Errorf("read the owner of schema %s: %w", schema, err)
	}
	if !owner.Valid || owner.String == "" {
		owner.String = "dbo"
	}
	name, _ := dialects.ConfinedName()
	user := QuoteIdent(name)
	fill := []string{"{{user}}", user, "{{name}}", strings.ReplaceAll(name, "'", "''"), "{{schema}}", QuoteIdent(schema), "{{owner}}", QuoteIdent(owner.String)}
	exec := func(ctx context.Context, c *sql.Conn, what, block string) error {
		q, err := get(block, fill...)
		if err != nil {
			return err
		}
		return dialects.ConnExec(ctx, c, what, q)
	}
	var db *sql.DB
	var conn *sql.Conn
	release := func(ctx context.Context) error {
		// The impersonating session cannot REVERT: it ends with its
		// connection, never returned to a pool.
		if conn != nil {
			conn.Raw(func(any) error { return driver.ErrBadConn })
			conn.Close()
		}
		if db != nil {
			db.Close()
		}
		return errors.Join(
			exec(ctx, admin, "give the workload's schema back to "+owner.String, "confine_return"),
			exec(ctx, admin, "drop the user the migration ran as", "confine_drop"))
	}
	if err := exec(ctx, admin, "create a user without login that owns only the workload's schema (needs ALTER ANY USER and CONTROL of the database, e.g. db_owner)", "confine_create"); err != nil {
		release(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("%w: %w", dialects.ErrCannotConfine, err)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, release(context.WithoutCancel(ctx)))
		}
	}()
	if db, err = open(ctx, "", "", ""); err != nil {
		return nil, fmt.Errorf("open the session the migration runs on: %w", err)
	}
	db.SetMaxOpenConns(1)
	if conn, err = db.Conn(ctx); err != nil {
		return nil, err
	}
	if err := exec(ctx, conn, "EXECUTE AS the workload's user WITH NO REVERT", "confine_enter"); err != nil {
		return nil, err
	}
	return &dialects.Confined{Conn: conn, Login: name, Release: release}, nil
}
