package restore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// LockWait is how long a check waits for another check on the same
// database before it gives up naming it.
var LockWait = 30 * time.Second

// Guard is a check's hold on its database: the per-database lock, on a
// session of its own, and the marker that records an applied migration.
type Guard struct {
	e      *Env
	conn   *sql.Conn
	marker string // writeamp_undo_<run>, "" until written
}

// Marker is the name of the record of the applied migration: "" until it
// is written, once it is dropped, and on a dialect that keeps none (SQL
// Server, Oracle: their guard is nil).
func (gd *Guard) Marker() string {
	if gd == nil {
		return ""
	}
	return gd.marker
}

// ErrRefused marks a check refused before anything was applied (exit 2).
var ErrRefused = errors.New("refused")

// sqlFor is one of check's own statements for s, with {{schema}} filled.
func sqlFor(s dialects.Server, name, schema string) (string, error) {
	text, err := queries.Get(s.Dialect, name, s.VersionNum)
	if err != nil {
		return "", err
	}
	return strings.ReplaceAll(text, "{{schema}}", dialects.CheckOf(s.Dialect).QuoteSchema(schema)), nil
}

// Acquire takes the database's check lock, waiting at most LockWait, and
// refuses while a killed check's migration is still applied. It returns nil
// (and no error) on a dialect without the lock. finished says, for the
// report's notes, what a killed check left that was undone first ("" when
// nothing was).
func (e *Env) Acquire(ctx context.Context) (gd *Guard, finished string, err error) {
	s := e.Server
	lock, err := queries.Get(s.Dialect, "check_lock", s.VersionNum)
	if err != nil {
		return nil, "", nil
	}
	conn, err := e.DB.Conn(ctx)
	if err != nil {
		return nil, "", err
	}
	deadline := time.Now().Add(LockWait)
	for {
		got, waited, err := dialects.CheckOf(s.Dialect).TakeLock(ctx, conn, lock, LockWait)
		if waited {
			deadline = time.Now() // the server waited already
		}
		if err != nil {
			conn.Close()
			return nil, "", fmt.Errorf("take the check lock: %w", err)
		}
		if got {
			break
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			holder := "(could not be read)"
			if h, err := queries.Get(s.Dialect, "check_lock_holder", s.VersionNum); err == nil {
				var pid, user, app, from, since string
				if conn.QueryRowContext(ctx, h).Scan(&pid, &user, &app, &from, &since) == nil {
					holder = fmt.Sprintf("session %s (user %s, %s, from %s, since %s)", pid, user, app, from, since)
				}
			}
			conn.Close()
			return nil, "", fmt.Errorf("%w: another writeamp check is running on database %s and holds its check lock: %s; waited %s. Two checks at once would measure and undo each other's migrations: run them one after the other, or on different databases", ErrRefused, s.Database, holder, LockWait)
		}
		time.Sleep(500 * time.Millisecond)
	}
	gd = &Guard{e: e, conn: conn}
	pending, err := undoMarkers(ctx, conn, s)
	if err != nil {
		gd.Release()
		return nil, "", err
	}
	if len(pending) > 0 {
		// A check killed before its undo (kill -9, a crash, a lost server)
		// left its record; the lock is ours, so that check is gone: finish
		// its undo, with the same proof as clean --drop, before measuring.
		// It runs to its end even when this check is interrupted meanwhile.
		e.logf("a check that was killed before it undid its migration left %s on database %s: finishing that undo first", strings.Join(pending, ", "), s.Database)
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		lines, left, err := finishPending(fctx, e.DB, conn, s, pending, true)
		cancel()
		for _, l := range lines {
			e.logf("  %s", strings.TrimSpace(l))
		}
		if err != nil || left > 0 {
			gd.Release()
			why := strings.Join(lines, "; ")
			if err != nil {
				why = strings.TrimPrefix(why+"; "+err.Error(), "; ")
			}
			return nil, "", &PendingError{fmt.Errorf("a check that was killed before it undid its migration left %s on database %s, and its undo could not be finished: %s. Put the database back by hand, then writeamp clean --dsn … --drop drops the record; check will not measure on top of it", strings.Join(pending, ", "), s.Database, why)}
		}
		finished = fmt.Sprintf("before measuring, check finished the undo of a check that was killed before it undid its migration (%s): %s", strings.Join(pending, ", "), strings.Join(lines, "; "))
		e.logf("the killed check's undo is finished (record dropped); the database is as recorded before its migration")
	}
	return gd, finished, nil
}

// PendingError is a refusal because an earlier check's undo is pending:
// the database is not as it was (exit 3).
type PendingError struct{ error }

func (e *PendingError) Unwrap() error { return e.error }

// markWrite bounds the writing of the record: it is not cut short by an
// interrupt, which would leave a torn record (and, on MySQL, a connection
// the driver closes), but it does not wait on a lost server forever.
const markWrite = 30 * time.Second

// markEnd is the record's last line: a record without it was torn while
// being written, before its check applied anything.
const markEnd = "end"

// Mark writes the record of the migration about to be applied: its undo
// statements and the catalog the undo must give back, ending with markEnd.
// Nothing may be applied unless it returns nil.
func (gd *Guard) Mark(ctx context.Context, undo []string, pre Catalog) error {
	if gd == nil {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s := gd.e.Server
	b := make([]byte, 4)
	rand.Read(b)
	name := "writeamp_undo_" + hex.EncodeToString(b)
	host, _ := os.Hostname()
	lines := [][2]string{{"meta", fmt.Sprintf("writeamp check pid %d on %s, started %s", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))},
		{"db", s.Database}}
	for _, u := range undo {
		lines = append(lines, [2]string{"undo", u})
	}
	for _, l := range pre {
		lines = append(lines, [2]string{"pre", l})
	}
	lines = append(lines, [2]string{markEnd, ""})
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), markWrite)
	defer cancel()
	for _, step := range []string{"undo_marker_create", "undo_marker_table"} {
		text, err := sqlFor(s, step, name)
		if err != nil {
			return err
		}
		if _, err := gd.conn.ExecContext(wctx, text); err != nil {
			return fmt.Errorf("write the record of the migration (%s): %w", name, err)
		}
		gd.marker = name
	}
	ins, err := sqlFor(s, "undo_marker_insert", name)
	if err != nil {
		return err
	}
	// One transaction: the record is whole or empty, never half a catalog
	// that a later check would take for the one to restore.
	tx, err := gd.conn.BeginTx(wctx, nil)
	if err != nil {
		return fmt.Errorf("write the record of the migration (%s): %w", name, err)
	}
	defer tx.Rollback()
	for i, l := range lines {
		if _, err := tx.ExecContext(wctx, ins, i, l[0], l[1]); err != nil {
			return fmt.Errorf("write the record of the migration (%s): %w", name, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("write the record of the migration (%s): %w", name, err)
	}
	// An interrupt that came while the record was written stops the check
	// here, before anything is applied; the caller drops the record.
	return ctx.Err()
}

// Unmark drops the record once the undo is done (or the check was kept).
func (gd *Guard) Unmark(ctx context.Context) {
	if gd == nil || gd.marker == "" {
		return
	}
	if text, err := sqlFor(gd.e.Server, "undo_marker_drop", gd.marker); err == nil {
		if _, err := gd.conn.ExecContext(ctx, text); err != nil {
			gd.e.logf("warning: the record %s could not be dropped: %v (writeamp clean --drop drops it)", gd.marker, err)
			return
		}
	}
	gd.marker = ""
}

// Release gives the lock back by closing its session.
func (gd *Guard) Release() {
	if gd == nil {
		return
	}
	gd.conn.Close()
}

func undoMarkers(ctx context.Context, q dialects.Querier, s dialects.Server) ([]string, error) {
	text, err := queries.Get(s.Dialect, "undo_markers", s.VersionNum)
	if err != nil {
		return nil, nil
	}
	rows, err := q.QueryContext(ctx, text)
	if err != nil {
		return nil, fmt.Errorf("look for a pending undo: %w", err)
	}
	defer rows.Close()
	var all []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		all = append(all, n)
	}
	if err := rows.Err(); err != nil || !dialects.SchemasAreDatabases(s.Dialect) {
		return all, err
	}
	// A record is a database of its own, server-wide (MySQL/MariaDB): only
	// those of this database count.
	var out []string
	for _, m := range all {
		text, err := sqlFor(s, "undo_marker_db", m)
		if err != nil {
			return nil, err
		}
		var db string
		if q.QueryRowContext(ctx, text).Scan(&db) == nil && db == s.Database {
			out = append(out, m)
		}
	}
	return out, nil
}
