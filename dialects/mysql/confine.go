package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	driver "github.com/go-sql-driver/mysql"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// OpenAs connects like Open, as another account.
func (d Dialect) OpenAs(ctx context.Context, dsn, user, password, database string) (*sql.DB, error) {
	cfg, err := Config(dsn)
	if err != nil {
		return nil, err
	}
	cfg.User, cfg.Passwd = user, password
	if database != "" {
		cfg.DBName = database
	}
	conn, err := driver.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("mysql: %s", dialects.ParseErrorText(err))
	}
	db := sql.OpenDB(conn)
	if err := dialects.PingWithin(ctx, db, ConnectTimeout); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// quoteString quotes a string literal for MySQL (backslashes too: the
// server reads them as escapes unless NO_BACKSLASH_ESCAPES).
func quoteString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(s) + "'"
}

// grantPattern is a database name as GRANT reads it: _ and % are
// wildcards there, and unescaped they would grant other databases too.
func grantPattern(db string) string {
	return strings.NewReplacer(`_`, `\_`, `%`, `\%`).Replace(db)
}

func account(user, host string) string { return quoteString(user) + "@" + quoteString(host) }

// CanConfine says whether the session's account may create the confined
// account, with the GRANT that lets it when not.
func (Dialect) CanConfine(ctx context.Context, q dialects.Querier, s dialects.Server) error {
	_, _, err := canConfine(ctx, q, s)
	return err
}

func canConfine(ctx context.Context, q dialects.Querier, s dialects.Server) (current, host string, err error) {
	var user string
	var n int
	if err := queries.QueryRow(ctx, q, Name, "confine_can", s.VersionNum).Scan(&current, &user, &n); err != nil {
		return "", "", fmt.Errorf("read whether %s may create accounts: %w", s.User, err)
	}
	if i := strings.LastIndex(user, "@"); i >= 0 {
		host = user[i+1:]
	}
	if n == 0 {
		name, h, _ := strings.Cut(current, "@")
		return "", "", fmt.Errorf("%w: check applies the built-in workload's migration as an account it creates for the run, granted only the workload's database, so that the server refuses anything else; %s may not create accounts: GRANT CREATE USER ON *.* TO %s; GRANT ALL ON `writeamp\\_rt\\_%%`.* TO %s WITH GRANT OPTION", dialects.ErrCannotConfine, current, account(name, h), account(name, h))
	}
	if host == "" {
		host = "%"
	}
	return current, host, nil
}

// Confine implements dialects.Confiner: an account created for the run
// with every privilege on the workload's database and none elsewhere.
func (d Dialect) Confine(ctx context.Context, admin *sql.Conn, s dialects.Server, schema string, open dialects.OpenAs) (c *dialects.Confined, err error) {
	_, host, err := canConfine(ctx, admin, s)
	if err != nil {
		return nil, err
	}
	get := func(name string, fill ...string) (string, error) { return dialects.Filled(Name, s, name, fill...) }
	exec := func(ctx context.Context, what, name string, fill ...string) error {
		return dialects.ExecFilled(ctx, admin, Name, s, what, name, fill...)
	}
	dropStale(ctx, admin, s)
	login, password := dialects.ConfinedName()
	acct := account(login, host)
	if err := exec(ctx, "create the confined account", "confine_create", "{{account}}", acct, "{{password}}", quoteString(password)); err != nil {
		return nil, fmt.Errorf("%w: %w", dialects.ErrCannotConfine, err)
	}
	var db *sql.DB
	var conn *sql.Conn
	release := func(ctx context.Context) error {
		if conn != nil {
			conn.Close()
		}
		if db != nil {
			db.Close()
		}
		endSessions(ctx, admin, s, login)
		if err := exec(ctx, "drop the confined account", "confine_drop", "{{account}}", acct); err != nil {
			return fmt.Errorf("%w (writeamp clean --drop, or DROP USER %s, removes it)", err, acct)
		}
		return nil
	}
	defer func() {
		if err != nil {
			if rerr := release(context.WithoutCancel(ctx)); rerr != nil {
				err = errors.Join(err, rerr)
			}
		}
	}()
	if err := exec(ctx, "grant the workload's database to the confined account", "confine_grant", "{{schema}}", QuoteIdent(grantPattern(schema)), "{{account}}", acct); err != nil {
		return nil, fmt.Errorf("%w: %w", dialects.ErrCannotConfine, err)
	}
	if err := reach(ctx, admin, s, schema); err != nil {
		return nil, err
	}
	db, err = open(ctx, login, password, schema)
	if err != nil {
		return nil, fmt.Errorf("log in as %s, the account check created to apply the migration inside the workload's database only: %w", acct, err)
	}
	db.SetMaxOpenConns(1)
	conn, err = db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	use, err := get("use_database")
	if err != nil {
		return nil, err
	}
	if err := dialects.ConnExec(ctx, conn, "USE the workload's database", dialects.FillSchema(use, QuoteIdent(schema))); err != nil {
		return nil, err
	}
	return &dialects.Confined{Conn: conn, Login: acct, Release: release}, nil
}

// endSessions waits for the confined account's sessions to end, and ends
// those that linger.
func endSessions(ctx context.Context, admin *sql.Conn, s dialects.Server, login string) {
	q, err := queries.Get(Name, "confine_sessions", s.VersionNum)
	if err != nil {
		return
	}
	ids := func() []string {
		out, _ := dialects.Strings(ctx, admin, q, login)
		return out
	}
	dialects.EndSessions(ids, func(ids []string) {
		if kill, err := queries.Get(Name, "confine_kill", s.VersionNum); err == nil {
			for _, id := range ids {
				admin.ExecContext(ctx, strings.ReplaceAll(kill, "{{id}}", id))
			}
		}
	})
}

// dropStale drops the confined accounts of checks killed before they could.
func dropStale(ctx context.Context, admin *sql.Conn, s dialects.Server) {
	q, err := queries.Get(Name, "confine_stale", s.VersionNum)
	if err != nil {
		return
	}
	drop, err := queries.Get(Name, "confine_drop", s.VersionNum)
	if err != nil {
		return
	}
	rows, err := admin.QueryContext(ctx, q)
	if err != nil {
		return
	}
	var accts []string
	for rows.Next() {
		var u, h string
		if rows.Scan(&u, &h) == nil {
			accts = append(accts, account(u, h))
		}
	}
	rows.Close()
	for _, a := range accts {
		admin.ExecContext(ctx, strings.ReplaceAll(drop, "{{account}}", a))
	}
}

// reach refuses a server where grants to PUBLIC let every account write
// outside the workload's database: there the server would let the
// migration through.
func reach(ctx context.Context, admin *sql.Conn, s dialects.Server, schema string) error {
	q, err := queries.Get(Name, "confine_reach", s.VersionNum)
	if err != nil {
		return err
	}
	found, err := dialects.Strings(ctx, admin, q, schema, schema, schema)
	if err != nil {
		return fmt.Errorf("read what every account may write (grants to PUBLIC): %w", err)
	}
	if len(found) > 0 {
		return fmt.Errorf("%w: every account may %s (granted to PUBLIC), so the server would not keep the migration inside the workload's database; REVOKE those from PUBLIC, or run check against a server without such grants", dialects.ErrCannotConfine, strings.Join(found, ", "))
	}
	return nil
}
