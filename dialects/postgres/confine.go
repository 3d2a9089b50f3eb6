package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/stdlib"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// OpenAs connects like Open, as another login.
func (d Dialect) OpenAs(ctx context.Context, dsn, user, password, database string) (*sql.DB, error) {
	cfg, err := Config(dsn)
	if err != nil {
		return nil, err
	}
	cfg.User, cfg.Password = user, password
	if database != "" {
		cfg.Database = database
	}
	db := stdlib.OpenDB(*cfg)
	if err := dialects.PingWithin(ctx, db, ConnectTimeout); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// CanConfine says whether the session's login may create the confined
// login, with the statement that lets it when not.
func (Dialect) CanConfine(ctx context.Context, q dialects.Querier, s dialects.Server) error {
	_, err := canConfine(ctx, q, s)
	return err
}

// canConfine is CanConfine, and whether the login is a superuser (who needs
// no membership of the confined login to hand it objects).
func canConfine(ctx context.Context, q dialects.Querier, s dialects.Server) (super bool, err error) {
	var createrole bool
	var user string
	if err := queries.QueryRow(ctx, q, Name, "confine_can", s.VersionNum).Scan(&super, &createrole, &user); err != nil {
		return false, fmt.Errorf("read whether %s may create roles: %w", s.User, err)
	}
	if !super && !createrole {
		return false, fmt.Errorf("%w: check applies the built-in workload's migration as a login it creates for the run, which owns only the workload's schema, so that the server refuses anything else; %s may not create roles: ALTER ROLE %s CREATEROLE (as a superuser)", dialects.ErrCannotConfine, user, QuoteIdent(user))
	}
	return super, nil
}

// Confine implements dialects.Confiner: a login created for the run that
// owns schema and nothing else, its session's search_path schema alone.
func (d Dialect) Confine(ctx context.Context, admin *sql.Conn, s dialects.Server, schema string, open dialects.OpenAs) (c *dialects.Confined, err error) {
	super, err := canConfine(ctx, admin, s)
	if err != nil {
		return nil, err
	}
	get := func(name string, fill ...string) (string, error) { return dialects.Filled(Name, s, name, fill...) }
	exec := func(ctx context.Context, what, name string, fill ...string) error {
		return dialects.ExecFilled(ctx, admin, Name, s, what, name, fill...)
	}
	dropStale(ctx, admin, s)
	login, password := dialects.ConfinedName()
	li := QuoteIdent(login)
	until := time.Now().UTC().Add(24 * time.Hour).Format("2006-01-02 15:04:05+00")
	if err := exec(ctx, "create the confined login", "confine_create", "{{login}}", li, "{{password}}", QuoteLiteral(password), "{{until}}", QuoteLiteral(until)); err != nil {
		return nil, fmt.Errorf("%w: %w", dialects.ErrCannotConfine, err)
	}
	bg := context.WithoutCancel(ctx)
	var conn *sql.Conn
	var db *sql.DB
	// release gives back what the login owns and drops it; every path
	// after CREATE ROLE goes through it.
	release := func(ctx context.Context) error {
		if conn != nil {
			conn.Close()
		}
		if db != nil {
			db.Close()
		}
		waitGone(ctx, admin, s, login)
		var outside []string
		if q, err := get("confine_outside"); err == nil {
			rows, err := admin.QueryContext(ctx, q, login, schema)
			if err == nil {
				for rows.Next() {
					var o string
					if rows.Scan(&o) == nil {
						outside = append(outside, o)
					}
				}
				rows.Close()
			}
		}
		var errs []error
		if len(outside) > 0 {
			// The schema goes back first, so that DROP OWNED removes what
			// the login made elsewhere and the workload's lifecycle still
			// finds its schema to drop.
			if err := exec(ctx, "take the workload's schema back", "confine_take_schema", "{{schema}}", QuoteIdent(schema)); err != nil {
				errs = append(errs, err)
			}
		} else if err := exec(ctx, "take the workload's objects back", "confine_reassign", "{{login}}", li); err != nil {
			errs = append(errs, err)
		}
		if err := exec(ctx, "drop what the confined login holds", "confine_drop_owned", "{{login}}", li); err != nil {
			errs = append(errs, err)
		}
		if err := exec(ctx, "drop the confined login", "confine_drop", "{{login}}", li); err != nil {
			errs = append(errs, fmt.Errorf("%w (writeamp clean --drop, or DROP ROLE %s, removes it)", err, li))
		}
		if len(outside) > 0 {
			errs = append([]error{fmt.Errorf("%w: %s (the server records them as the confined login's; they were dropped with it)", dialects.ErrOutside, strings.Join(outside, ", "))}, errs...)
		}
		return errors.Join(errs...)
	}
	defer func() {
		if err != nil {
			if rerr := release(bg); rerr != nil {
				err = fmt.Errorf("%w; %w", err, rerr)
			}
		}
	}()
	if !super {
		if err := exec(ctx, "make the session's login a member of the confined login", "confine_member", "{{login}}", li); err != nil {
			return nil, fmt.Errorf("%w: %w", dialects.ErrCannotConfine, err)
		}
	}
	var mayConnect bool
	if q, err := get("confine_may_connect"); err == nil {
		if err := admin.QueryRowContext(ctx, q, login).Scan(&mayConnect); err != nil {
			return nil, fmt.Errorf("read whether the confined login may connect: %w", err)
		}
	}
	if !mayConnect {
		if err := exec(ctx, "let the confined login connect", "confine_connect", "{{database}}", QuoteIdent(s.Database), "{{login}}", li); err != nil {
			return nil, err
		}
	}
	if err := reach(ctx, admin, s, login, schema); err != nil {
		return nil, err
	}
	if err := exec(ctx, "hand the workload's schema to the confined login", "confine_give_schema", "{{schema}}", QuoteIdent(schema), "{{login}}", li); err != nil {
		return nil, err
	}
	rels, err := listStrings(ctx, admin, s, "confine_relations", schema)
	if err != nil {
		return nil, fmt.Errorf("list the workload's relations: %w", err)
	}
	for _, r := range rels {
		if err := exec(ctx, "hand "+r+" to the confined login", "confine_give_relation", "{{relation}}", r, "{{login}}", li); err != nil {
			return nil, err
		}
	}
	db, err = open(ctx, login, password, "")
	if err != nil {
		return nil, fmt.Errorf("log in as %s, the login check created to apply the migration inside the workload's schema only: %w (pg_hba.conf must let a new login connect to %s from here with a password, e.g. `host %s all 127.0.0.1/32 scram-sha-256`)", login, err, s.Database, s.Database)
	}
	db.SetMaxOpenConns(1)
	conn, err = db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	q, err := get("confine_search_path")
	if err != nil {
		return nil, err
	}
	if _, err := conn.ExecContext(ctx, q, QuoteIdent(schema)); err != nil {
		return nil, fmt.Errorf("set the confined session's search_path: %w", err)
	}
	return &dialects.Confined{Conn: conn, Login: login, Release: release}, nil
}

// reach refuses a login that grants to PUBLIC would let write outside the
// schema: there the server would not stop the migration.
func reach(ctx context.Context, admin *sql.Conn, s dialects.Server, login, schema string) error {
	found, err := listStrings(ctx, admin, s, "confine_reach", login, schema)
	if err != nil {
		return fmt.Errorf("read what a new login may write: %w", err)
	}
	if len(found) > 0 {
		return fmt.Errorf("%w: every new login may change %s (privileges granted to PUBLIC), so the server would not keep the migration inside the workload's schema; revoke them from PUBLIC, or run check against a database without such grants", dialects.ErrCannotConfine, strings.Join(found, ", "))
	}
	return nil
}

func listStrings(ctx context.Context, q dialects.Querier, s dialects.Server, name string, args ...any) ([]string, error) {
	text, err := queries.Get(Name, name, s.VersionNum)
	if err != nil {
		return nil, err
	}
	return dialects.Strings(ctx, q, text, args...)
}

// waitGone waits for the confined login's backends to exit (its temporary
// objects go with them, and only then is what it owns final), and ends
// them if they linger.
func waitGone(ctx context.Context, admin *sql.Conn, s dialects.Server, login string) {
	pids := func() []string {
		p, _ := listStrings(ctx, admin, s, "confine_sessions", login)
		return p
	}
	dialects.EndSessions(pids, func([]string) {
		if t, err := queries.Get(Name, "confine_terminate", s.VersionNum); err == nil {
			admin.ExecContext(ctx, t, login)
		}
	})
}

// dropStale drops the confined logins of checks killed before they could
// (best effort: DROP ROLE refuses one that owns or holds anything).
func dropStale(ctx context.Context, admin *sql.Conn, s dialects.Server) {
	stale, err := listStrings(ctx, admin, s, "confine_stale")
	if err != nil {
		return
	}
	drop, err := queries.Get(Name, "confine_drop", s.VersionNum)
	if err != nil {
		return
	}
	for _, l := range stale {
		admin.ExecContext(ctx, strings.ReplaceAll(drop, "{{login}}", QuoteIdent(l)))
	}
}
