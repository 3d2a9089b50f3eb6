package check

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"

	"github.com/dustin/go-humanize"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// A check --clone killed with -9 (or whose server connection died) leaves
// its copies: nothing in it runs to drop them. Each copy is marked ours
// (a comment on the database naming the run) and the run holds a
// session-level lock named after it for as long as its copies may exist,
// the rule writeamp's schemas follow: a marked copy whose run's lock is
// free and that no session uses belongs to a check that is gone, and
// writeamp clean --drop drops it.

const cloneMarker = "writeamp check --clone: "

func (c *Cloner) lockName() string { return "writeamp:writeamp_ck_" + c.runID }

// lock takes the run's lock on a session of its own, held until unlock.
func (c *Cloner) lock(ctx context.Context) error {
	conn, err := c.Admin.Conn(ctx)
	if err != nil {
		return fmt.Errorf("--clone: a session for the run's lock: %w", err)
	}
	if _, err := conn.ExecContext(ctx, c.sql("clone_lock"), c.lockName()); err != nil {
		conn.Close()
		return fmt.Errorf("--clone: take the run's lock: %w", err)
	}
	c.lockConn = conn
	return nil
}

// unlock releases the run's lock once its copies are dropped.
func (c *Cloner) unlock(ctx context.Context) {
	if c.lockConn == nil {
		return
	}
	c.lockConn.ExecContext(context.WithoutCancel(ctx), c.sql("clone_unlock"), c.lockName())
	c.lockConn.Close() // the session's end frees the lock anyway
	c.lockConn = nil
}

// mark writes the copy's owner marker.
func (c *Cloner) mark(ctx context.Context, name string) error {
	host, _ := os.Hostname()
	text := fmt.Sprintf("%scopy of %s, run %s (lock %s), pid %d on %s", cloneMarker, c.Template, c.runID, c.lockName(), os.Getpid(), host)
	lit := c.quote.QuoteLiteral(strings.ReplaceAll(text, `\`, "/"))
	q := strings.NewReplacer("{{clone}}", c.ident(name), "{{marker}}", lit).Replace(c.sql("clone_mark"))
	_, err := c.Admin.ExecContext(ctx, q)
	return err
}

// CloneLeftovers lists (PostgreSQL) the copies of source that a check left
// on the server, and with drop removes those of a check that is gone:
// marked ours, their run's lock free, no session on them. A copy in use,
// without the marker, or of another database is listed and never touched:
// clean and check act on the database they were given only.
func CloneLeftovers(ctx context.Context, db *sql.DB, s dialects.Server, source string, drop bool) ([]string, error) {
	if s.Dialect != "postgres" {
		return nil, nil
	}
	quote, err := postgresQuoting()
	if err != nil {
		return nil, err
	}
	dropLeft, err := queries.Get("postgres", "clone_drop_left", s.VersionNum)
	if err != nil {
		return nil, err
	}
	rows, err := queries.Query(ctx, db, "postgres", "clone_survey", s.VersionNum)
	if err != nil {
		return nil, fmt.Errorf("list check --clone copies: %w", err)
	}
	type copyLeft struct {
		name, marker string
		locked       bool
		sessions     int
		size         sql.NullInt64
	}
	var found []copyLeft
	for rows.Next() {
		var l copyLeft
		if err := rows.Scan(&l.name, &l.marker, &l.locked, &l.sessions, &l.size); err != nil {
			rows.Close()
			return nil, fmt.Errorf("list check --clone copies: %w", err)
		}
		found = append(found, l)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list check --clone copies: %w", err)
	}
	var out []string
	for _, l := range found {
		size := "size unreadable"
		if l.size.Valid {
			size = humanize.IBytes(uint64(l.size.Int64))
		}
		what := fmt.Sprintf("database %s (%s; %s)", l.name, strings.TrimPrefix(l.marker, cloneMarker), size)
		switch {
		case !strings.HasPrefix(l.marker, cloneMarker):
			out = append(out, fmt.Sprintf("%-9s  database %s (no writeamp marker; %s); never touched", "not ours", l.name, size))
		case !strings.HasPrefix(l.marker, cloneMarker+"copy of "+source+", "):
			out = append(out, fmt.Sprintf("%-9s  %s: a copy of another database; never touched from this one (clean with that database's DSN)", "other", what))
		case l.locked || l.sessions > 0:
			out = append(out, fmt.Sprintf("%-9s  %s: its check holds the run's lock or %d session(s) use it; never touched", "in use", what, l.sessions))
		case !drop:
			out = append(out, fmt.Sprintf("%-9s  %s: its check is gone (lock free, no session); clean --drop drops it", "abandoned", what))
		default:
			q := strings.ReplaceAll(dropLeft, "{{clone}}", quote.QuoteIdent(l.name))
			if _, err := db.ExecContext(ctx, q); err != nil {
				out = append(out, fmt.Sprintf("%-9s  %s: dropping it failed: %v", "abandoned", what, err))
				continue
			}
			out = append(out, fmt.Sprintf("%-9s  %s; dropped", "abandoned", what))
		}
	}
	return out, nil
}
