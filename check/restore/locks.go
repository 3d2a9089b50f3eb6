package restore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// DefaultLockTimeout bounds how long a statement of the migration or of its
// undo waits for a lock another session holds (--lock-timeout). Without it
// a DDL behind an idle-in-transaction session waits forever (PostgreSQL's
// default), or a year (MySQL's and MariaDB's lock_wait_timeout).
const DefaultLockTimeout = 10 * time.Second

// blockerPoll is how often a running statement's blockers are read, once it
// has run that long: the server forgets them the moment the wait ends.
const blockerPoll = 300 * time.Millisecond

// Env is what the restore works with: the measured server, its pool, the
// bound on lock waits and where notes go. check builds it from its Gate;
// nothing here reaches back into check.
type Env struct {
	Server dialects.Server
	// DB is the measured pool: who blocks a session is read on one of its
	// connections (nil: not read).
	DB *sql.DB
	// LockTimeout bounds each lock wait (--lock-timeout; 0: as long as the
	// server lets it).
	LockTimeout time.Duration
	// Log prints a progress line or a warning (nil: none).
	Log func(format string, a ...any)
}

func (e *Env) logf(format string, a ...any) {
	if e.Log != nil {
		e.Log(format, a...)
	}
}

// ownSQL is one of check's own statements for the server's dialect
// (queries/<dialect>/check.sql).
func (e *Env) ownSQL(name string) (string, error) {
	return queries.Get(e.Server.Dialect, name, e.Server.VersionNum)
}

// traits is how check's queries and undo work on the server's dialect.
func (e *Env) traits() dialects.CheckTraits { return dialects.CheckOf(e.Server.Dialect) }

// Session is the session a migration or its undo runs on: its lock
// waits bounded (set before its first statement, so nothing is sent when
// there is nothing to run), and who blocks it read while a statement waits.
type Session struct {
	e       *Env
	conn    *sql.Conn
	id      string // the server's id of the session (pid, SPID, SID)
	started bool
}

// Session is conn with its lock waits bounded by e.LockTimeout.
func (e *Env) Session(conn *sql.Conn) *Session { return &Session{e: e, conn: conn} }

// bound sets --lock-timeout on the session. A dialect without the
// statements runs unbounded.
func (s *Session) bound(ctx context.Context) error {
	if s.started {
		return nil
	}
	s.started = true
	e := s.e
	set, err := e.ownSQL("lock_timeout")
	if err != nil {
		return nil
	}
	if e.LockTimeout <= 0 {
		return nil // 0: as long as the server (and the role's settings) let a lock wait
	}
	ms, secs := e.LockTimeout.Milliseconds(), max(int64(e.LockTimeout/time.Second), 1) // MySQL and Oracle count whole seconds
	set = strings.NewReplacer("{{ms}}", strconv.FormatInt(ms, 10), "{{s}}", strconv.FormatInt(secs, 10)).Replace(set)
	if _, err := s.conn.ExecContext(ctx, set); err != nil {
		return fmt.Errorf("setting --lock-timeout %v on the migration's session: %w", e.LockTimeout, err)
	}
	if q, err := e.ownSQL("check_session_id"); err == nil {
		if err := s.conn.QueryRowContext(ctx, q).Scan(&s.id); err != nil {
			s.id = "" // blockers are then not named; the timeout still holds
		}
	}
	return nil
}

// BoundedRead runs read on one session whose lock waits are bounded by
// --lock-timeout, as the migration's are: a read of check's (the catalog,
// the tables, their checksums) that waits behind another session's lock
// gives up in time instead of as long as that lock is held. q is the
// measured pool (a connection is taken from it, and keeps the bound when
// it goes back, so what else check reads on it is bounded too) or a
// session of the undo. A read that gave up names the sessions that held it
// up, sampled while it waited: the server forgets them when the wait ends.
func (e *Env) BoundedRead(ctx context.Context, q dialects.Querier, read func(q dialects.Querier) error) error {
	var conn *sql.Conn
	switch c := q.(type) {
	case *sql.DB:
		cn, err := c.Conn(ctx)
		if err != nil {
			return err
		}
		// The session goes back to the pool without the bound, so no
		// workload statement inherits --lock-timeout; one whose reset fails
		// is closed instead.
		defer func() {
			if reset, err := e.ownSQL("lock_timeout_reset"); err == nil && e.LockTimeout > 0 {
				if _, err := cn.ExecContext(context.WithoutCancel(ctx), reset); err != nil {
					cn.Raw(func(any) error { return driver.ErrBadConn })
				}
			}
			cn.Close()
		}()
		conn = cn
	case *sql.Conn:
		conn = c
	default:
		return read(q) // a transaction: its session was bounded when it began
	}
	s := e.Session(conn)
	if err := s.bound(ctx); err != nil {
		return err
	}
	w := s.watch(ctx)
	err := read(conn)
	return s.explain(err, w.stop())
}

// ErrBlocked marks a statement of check's that gave up waiting for a lock
// another session holds (--lock-timeout); its text names the blockers.
var ErrBlocked = errors.New("blocked by another session")

// explain adds to a statement's error what held it up: for a lock
// timeout, the flag that bounds the wait; the blocking sessions seen.
func (s *Session) explain(err error, blockers []string) error {
	if err == nil {
		return nil
	}
	var parts []string
	timedOut := isLockTimeout(s.e.Server.Dialect, err)
	if timedOut {
		parts = append(parts, fmt.Sprintf("it waited longer than --lock-timeout %v for a lock", s.e.LockTimeout))
	}
	if len(blockers) > 0 {
		parts = append(parts, "blocked by "+strings.Join(blockers, "; "))
	}
	if len(parts) == 0 {
		return err
	}
	if timedOut {
		return fmt.Errorf("%w (%s; end that session or wait for it, or raise --lock-timeout): %w", err, strings.Join(parts, ": "), ErrBlocked)
	}
	return fmt.Errorf("%w (%s)", err, strings.Join(parts, ": "))
}

// Exec runs one statement. When it fails after waiting, the error names the
// sessions that held it up (sampled while it ran) and, for a lock timeout,
// the flag that bounds it.
func (s *Session) Exec(ctx context.Context, text string) error {
	if err := s.bound(ctx); err != nil {
		return err
	}
	w := s.watch(ctx)
	_, err := s.conn.ExecContext(ctx, text)
	return s.explain(err, w.stop())
}

type blockWatch struct {
	mu    sync.Mutex
	seen  []string
	done  chan struct{}
	ended sync.WaitGroup
}

// watch reads, on another connection, which sessions block this one while
// a statement runs longer than blockerPoll.
func (s *Session) watch(ctx context.Context) *blockWatch {
	w := &blockWatch{done: make(chan struct{})}
	q, err := s.e.ownSQL("blocking_sessions")
	if err != nil || s.id == "" || s.e.DB == nil {
		return w
	}
	w.ended.Add(1)
	go func() {
		defer w.ended.Done()
		t := time.NewTicker(blockerPoll)
		defer t.Stop()
		for {
			select {
			case <-w.done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			got, err := readBlockers(qctx, s.e.DB, q, s.id)
			cancel()
			if err == nil && len(got) > 0 {
				w.mu.Lock()
				w.seen = got
				w.mu.Unlock()
			}
		}
	}()
	return w
}

// stop ends the watch and returns the blockers it saw last.
func (w *blockWatch) stop() []string {
	close(w.done)
	w.ended.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seen
}

func readBlockers(ctx context.Context, db *sql.DB, q, id string) ([]string, error) {
	rows, err := db.QueryContext(ctx, q, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var sid, user, state, what string
		if err := rows.Scan(&sid, &user, &state, &what); err != nil {
			return nil, err
		}
		b := fmt.Sprintf("session %s (user %s, %s)", strings.TrimSpace(sid), orDash(user), orDash(state))
		if what = strings.TrimSpace(what); what != "" {
			b += ": " + Short(what)
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

func orDash(s string) string {
	if s = strings.TrimSpace(s); s == "" {
		return "-"
	}
	return s
}

// Short is s on one line, cut to 80 characters, for reports and errors.
func Short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

// isLockTimeout reports a statement that gave up waiting for a lock, by the
// dialect's error code.
func isLockTimeout(dialect string, err error) bool { return dialects.IsLockTimeout(dialect, err) }
