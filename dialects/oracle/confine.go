package oracle

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	go_ora "github.com/sijms/go-ora/v2"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// OpenAs connects like Open, as another user ("" keeps the DSN's). Only
// the URL form of the DSN names a user that can be replaced.
func (d Dialect) OpenAs(ctx context.Context, dsn, user, password, database string) (*sql.DB, error) {
	if user != "" {
		u, err := url.Parse(dsn)
		if err != nil || !strings.EqualFold(u.Scheme, "oracle") {
			return nil, errors.New("connecting as another user needs --dsn as an oracle://user:password@host:1521/service URL")
		}
		u.User = url.UserPassword(user, password)
		dsn = u.String()
	}
	conn := go_ora.NewConnector(WithProgram(dsn))
	if oc, ok := conn.(*go_ora.OracleConnector); ok {
		oc.Dialer(&net.Dialer{Timeout: ConnectTimeout})
	}
	db := sql.OpenDB(conn)
	if err := dialects.PingWithin(ctx, db, ConnectTimeout); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// Confine implements dialects.Confiner: the workload's user itself, which
// owns the schema and nothing else, logged in with a password made for the
// apply step and locked again after it.
func (d Dialect) Confine(ctx context.Context, admin *sql.Conn, s dialects.Server, schema string, open dialects.OpenAs) (c *dialects.Confined, err error) {
	get := func(name string, fill ...string) (string, error) { return dialects.Filled(Name, s, name, fill...) }
	b := make([]byte, 12)
	rand.Read(b)
	// Oracle passwords start with a letter and hold at most 30 bytes.
	password := "Wa" + hex.EncodeToString(b)
	fill := []string{"{{user}}", schema, "{{password}}", password}
	exec := func(ctx context.Context, what, block string) error {
		q, err := get(block, fill...)
		if err != nil {
			return err
		}
		return dialects.ConnExec(ctx, admin, what, q)
	}
	user := strings.ToUpper(schema) // created unquoted
	var db *sql.DB
	var conn *sql.Conn
	release := func(ctx context.Context) error {
		if conn != nil {
			conn.Close()
		}
		if db != nil {
			db.Close()
		}
		endSessions(ctx, admin, s, user)
		return errors.Join(
			exec(ctx, "lock the workload's user again", "confine_lock"),
			exec(ctx, "revoke CREATE SESSION from the workload's user", "confine_revoke"))
	}
	if err := exec(ctx, "give the workload's user a password for the apply step (needs ALTER USER)", "confine_password"); err != nil {
		return nil, fmt.Errorf("%w: %w", dialects.ErrCannotConfine, err)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, release(context.WithoutCancel(ctx)))
		}
	}()
	if err := exec(ctx, "grant the workload's user what creating objects in its own schema needs (needs those privileges WITH ADMIN OPTION, or GRANT ANY PRIVILEGE)", "confine_grant"); err != nil {
		return nil, fmt.Errorf("%w: %w", dialects.ErrCannotConfine, err)
	}
	if db, err = open(ctx, user, password, ""); err != nil {
		return nil, fmt.Errorf("log in as the workload's user %s: %w", user, err)
	}
	db.SetMaxOpenConns(1)
	if conn, err = db.Conn(ctx); err != nil {
		return nil, err
	}
	return &dialects.Confined{Conn: conn, Login: user, Release: release}, nil
}

// endSessions waits for the workload user's sessions to end and kills
// those that linger.
func endSessions(ctx context.Context, admin *sql.Conn, s dialects.Server, user string) {
	q, err := queries.Get(Name, "confine_sessions", s.VersionNum)
	if err != nil {
		return
	}
	ids := func() []string {
		out, _ := dialects.Strings(ctx, admin, q, user)
		return out
	}
	dialects.EndSessions(ids, func(ids []string) {
		if kill, err := queries.Get(Name, "confine_kill", s.VersionNum); err == nil {
			for _, id := range ids {
				admin.ExecContext(ctx, strings.ReplaceAll(kill, "{{sid}}", id))
			}
		}
	})
}
