package dialects

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/writeamp/writeamp/queries"
)

// Confiner is implemented by dialects that can give check a session which
// the server itself confines to one schema: a login created for the run
// that owns that schema and holds no other privilege. check applies the
// built-in workload's migration (and --schema) through it, so a statement
// naming any other object fails in the server instead of changing it; no
// list of what a migration might touch is involved.
type Confiner interface {
	// Confine creates the login on admin (a session of the user's login
	// that created schema), hands schema to it, and opens a session as it
	// through open. The returned Confined must be released.
	Confine(ctx context.Context, admin *sql.Conn, s Server, schema string, open OpenAs) (*Confined, error)
}

// OpenAs connects to the measured server as another login, to database
// ("" for the measured one), with everything else (host, port, TLS) as the
// user gave it.
type OpenAs func(ctx context.Context, user, password, database string) (*sql.DB, error)

// UserOpener is implemented by dialects that can reconnect as another
// login (the confined login of check).
type UserOpener interface {
	OpenAs(ctx context.Context, dsn, user, password, database string) (*sql.DB, error)
}

// Confined is a session confined to one schema.
type Confined struct {
	// Conn is the confined session; Login names its login, for errors.
	Conn  *sql.Conn
	Login string
	// Release closes the session, gives the schema back to the admin
	// session's login and drops the login. It returns ErrOutside (wrapped,
	// naming the objects) when the session created objects outside the
	// schema; those are dropped with the login, by the server's own record
	// of what the login owns.
	Release func(ctx context.Context) error
}

// ErrOutside marks a confined session that created something outside its
// schema: bad input, and nothing of it is left.
var ErrOutside = errors.New("created outside the workload's schema")

// ErrCannotConfine marks a login that may not create the confined login;
// its message carries the GRANT that lets it.
var ErrCannotConfine = errors.New("cannot create a login confined to the workload's schema")

// ConfinerOf is a registered dialect's Confiner.
func ConfinerOf(name string) (Confiner, error) {
	return optional[Confiner](name, fmt.Sprintf("check: no login confined to the workload's schema on %s", name))
}

// ConfinedName is a fresh name for a confined login, and its password:
// both random, so a login left by a killed check is never reused and its
// password is known to nobody.
func ConfinedName() (name, password string) {
	b := make([]byte, 20)
	rand.Read(b)
	return "writeamp_mig_" + hex.EncodeToString(b[:5]), "wa" + hex.EncodeToString(b[5:])
}

// Strings runs query on q and returns its rows' one column.
func Strings(ctx context.Context, q Querier, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// EndSessions waits, a few seconds at most, until sessions (the confined
// login's, listed by list) are gone, and ends those that linger with end:
// a dropped login's open session would keep its privileges, and what it
// owns is final only once it has ended.
func EndSessions(list func() []string, end func(ids []string)) {
	gone := func() bool {
		for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if len(list()) == 0 {
				return true
			}
		}
		return false
	}
	if !gone() {
		end(list())
		gone()
	}
}

// Filled is a named query of the dialect for s with its {{placeholders}}
// replaced (fill: placeholder, value, ...): the confinement code's
// statements name logins, schemas and passwords, which no bind parameter
// can stand for in DDL.
func Filled(dialect string, s Server, name string, fill ...string) (string, error) {
	t, err := queries.Get(dialect, name, s.VersionNum)
	if err != nil {
		return "", err
	}
	return strings.NewReplacer(fill...).Replace(t), nil
}

// ExecFilled runs Filled on conn, the error prefixed with what it was for.
func ExecFilled(ctx context.Context, conn *sql.Conn, dialect string, s Server, what, name string, fill ...string) error {
	q, err := Filled(dialect, s, name, fill...)
	if err != nil {
		return err
	}
	return ConnExec(ctx, conn, what, q)
}
