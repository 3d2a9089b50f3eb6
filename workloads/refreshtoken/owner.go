package refreshtoken

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// Ownership of the workload's schemas, provable across hosts and PID
// namespaces. Each schema has a lock named after it, a session-level lock of
// the database (PostgreSQL advisory lock, MySQL/MariaDB GET_LOCK, SQL Server
// sp_getapplock, Oracle DBMS_LOCK) that the run making the schema takes
// before creating it and holds until it has dropped it. The database frees
// it when the session ends, however the process ends (kill -9, a crash, a
// lost host). So a schema whose lock can be taken belongs to no running
// writeamp and may be dropped, and one whose lock is held is never touched.
// Schemas kept with --keep are marked so and never dropped automatically.

// lockSession is the marker's lock_kind for a schema guarded by its lock.
const lockSession = "session"

func lockName(schema string) string { return "writeamp:" + strings.ToLower(schema) }

func hostname() string { h, _ := os.Hostname(); return h }

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// KeepObjects makes Prepare mark the schemas it creates as kept (--keep):
// Cleanup then releases them without dropping them, and no later run drops
// them; `writeamp clean --drop` does, on request.
func (w *Workload) KeepObjects() { w.keep = true }

// tryLock takes a schema's lock on conn without waiting: true when taken.
func (w *Workload) tryLock(ctx context.Context, conn dialects.Querier, schema string) (bool, error) {
	q := w.mustSQL("rt_schema_lock")
	if w.dialect == "oracle" {
		// A PL/SQL block has no result: a lock held by another raises ORA-20001.
		_, err := conn.ExecContext(ctx, q, lockName(schema))
		if err != nil && strings.Contains(err.Error(), "ORA-20001") {
			return false, nil
		}
		return err == nil, err
	}
	var got sql.NullInt64
	if err := conn.QueryRowContext(ctx, q, lockName(schema)).Scan(&got); err != nil {
		return false, err
	}
	if !got.Valid {
		return false, fmt.Errorf("the database could not take lock %s", lockName(schema))
	}
	return got.Int64 == 1, nil
}

func (w *Workload) unlock(ctx context.Context, conn dialects.Querier, schema string) error {
	_, err := conn.ExecContext(ctx, w.mustSQL("rt_schema_unlock"), lockName(schema))
	return err
}

// lockGrants say what a login needs to take a lock, where it needs anything.
var lockGrants = map[string]string{"oracle": "GRANT EXECUTE ON SYS.DBMS_LOCK TO <user>"}

// hold takes the current schema's lock on a connection of its own, kept
// until release.
func (w *Workload) hold(ctx context.Context, db *sql.DB) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	ok, err := w.tryLock(ctx, conn, w.schema)
	if err != nil || !ok {
		conn.Close()
		if err == nil {
			return fmt.Errorf("schema %s: its lock %s is held by another session (a run id collision: run again)", w.schema, lockName(w.schema))
		}
		fix := ""
		if g, ok := lockGrants[w.dialect]; ok {
			fix = " (fix: " + w.names(g) + ")"
		}
		return fmt.Errorf("take the lock that marks schema %s as in use: %w%s", w.schema, err, fix)
	}
	w.lockConn = conn
	return nil
}

// release gives up the current schema's lock and its connection.
func (w *Workload) release(ctx context.Context) {
	if w.lockConn == nil {
		return
	}
	w.unlock(ctx, w.lockConn, w.schema)
	w.lockConn.Close()
	w.lockConn = nil
}

// marker is what a schema's writeamp_owner row says.
type marker struct {
	RunID, Host, Started, Lock string
	PID                        int
	Kept                       bool
	Legacy                     bool // written before schema locks: no lock kind, no kept flag
}

func (w *Workload) readMarker(ctx context.Context, q dialects.Querier) (marker, error) {
	var m marker
	var kept int
	err := q.QueryRowContext(ctx, w.mustSQL("rt_marker_read")).Scan(&m.RunID, &m.PID, &m.Host, &m.Started, &m.Lock, &kept)
	if err == nil {
		m.Kept = kept != 0
		return m, nil
	}
	if lerr := q.QueryRowContext(ctx, w.mustSQL("rt_marker_read_legacy")).Scan(&m.RunID, &m.PID, &m.Host); lerr == nil {
		m.Legacy = true
		return m, nil
	}
	return m, err
}

func (w *Workload) listSchemas(ctx context.Context, db dialects.Querier) ([]string, error) {
	rows, err := db.QueryContext(ctx, w.mustSQL("rt_list_schemas"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// Cleanup drops the current schema, which this run created and whose lock it
// holds, and gives the lock up; a kept schema (--keep) is only released.
func (w *Workload) Cleanup(ctx context.Context, db *sql.DB) error {
	if w.schema == "" {
		return nil
	}
	defer w.release(ctx)
	if w.keep {
		return nil
	}
	err := w.onConn(ctx, db, func(conn *sql.Conn) error { return w.drop(ctx, conn) })
	if err != nil && w.created {
		return fmt.Errorf("%w; schema %s was left behind: the next writeamp run on this database drops it, or `writeamp clean --drop`", err, w.schema)
	}
	return err
}

// drop removes the current schema when this process created it, or when its
// marker names this run (a half-made schema is this run's by the first).
func (w *Workload) drop(ctx context.Context, db dialects.Querier) error {
	if !w.created {
		m, err := w.readMarker(ctx, db)
		if err != nil || m.RunID != w.RunID {
			if err == nil {
				err = fmt.Errorf("marker names run %s", m.RunID)
			}
			return fmt.Errorf("schema %s not dropped: cannot confirm writeamp created it in this run (%v)", w.schema, err)
		}
	}
	if _, err := db.ExecContext(ctx, w.mustSQL("rt_drop_schema")); err != nil {
		return fmt.Errorf("drop schema %s: %w", w.schema, err)
	}
	w.created = false
	return nil
}

// Leftover is a writeamp_rt_* schema found on the server and what it is.
type Leftover struct {
	Schema string
	State  string // one of the State* constants
	Detail string
}

// States of a Leftover.
const (
	StateInUse     = "in use"    // its lock is held: a writeamp run is using it
	StateAbandoned = "abandoned" // its lock is free: the run that made it is gone
	StateKept      = "kept"      // kept with --keep
	StateLegacy    = "unlocked"  // made by a writeamp without schema locks: cannot tell
	StateNotOurs   = "not ours"  // no writeamp marker
)

func (l Leftover) String() string { return l.Schema + " (" + l.State + ": " + l.Detail + ")" }

// CleanLeftovers drops the schemas of earlier runs that are gone (their lock
// is free), on any host and in any PID namespace; schemas in use, kept with
// --keep, of an older writeamp or without a marker are listed, not touched.
func (w *Workload) CleanLeftovers(ctx context.Context, db *sql.DB, s dialects.Server) (dropped, kept []string, err error) {
	found, err := Survey(ctx, db, s, func(l Leftover) bool { return l.State == StateAbandoned })
	for _, l := range found {
		switch {
		case strings.Contains(l.Schema, w.RunID):
		case l.State == StateAbandoned:
			dropped = append(dropped, l.Schema)
		default:
			kept = append(kept, l.String())
		}
	}
	return dropped, kept, err
}

// Survey lists every writeamp_rt_* schema with its state, and drops those
// drop says to, only when their lock can be taken (abandoned, kept, or
// unlocked ones: never one in use, never one without a marker). A dropped
// schema's State stays what it was; its Detail says "dropped".
func Survey(ctx context.Context, db *sql.DB, s dialects.Server, drop func(Leftover) bool) ([]Leftover, error) {
	w := New(DefaultParams())
	w.dialect, w.version, w.server = s.Dialect, s.VersionNum, s
	if _, err := queries.Get(s.Dialect, "rt_list_schemas", s.VersionNum); err != nil {
		return nil, nil // a dialect without the workload has no schemas of it
	}
	var out []Leftover
	err := w.onConn(ctx, db, func(conn *sql.Conn) error {
		names, err := w.listSchemas(ctx, conn)
		if err != nil {
			return err
		}
		for _, n := range names {
			l, err := w.inspect(ctx, conn, n, drop)
			if err != nil {
				return err
			}
			out = append(out, l)
		}
		return nil
	})
	return out, err
}

// inspect reads one schema's marker and probes its lock; with drop saying
// so, drops it while holding the lock.
func (w *Workload) inspect(ctx context.Context, conn *sql.Conn, name string, drop func(Leftover) bool) (Leftover, error) {
	w.schema = name
	l := Leftover{Schema: name}
	m, err := w.readMarker(ctx, conn)
	if err != nil {
		l.State, l.Detail = StateNotOurs, "no writeamp marker"
		return l, nil
	}
	who := fmt.Sprintf("run %s, pid %d on host %s", m.RunID, m.PID, m.Host)
	if m.Started != "" {
		who += ", started " + m.Started
	}
	if m.Legacy {
		l.State, l.Detail = StateLegacy, who+"; made by a writeamp without schema locks, so whether its run is alive cannot be told"
		if drop == nil || !drop(l) {
			return l, nil
		}
		return w.dropLeftover(ctx, conn, l)
	}
	ok, err := w.tryLock(ctx, conn, name)
	if err != nil {
		return l, fmt.Errorf("probe the lock of schema %s: %w", name, err)
	}
	if !ok {
		l.State, l.Detail = StateInUse, who
		return l, nil
	}
	defer w.unlock(context.WithoutCancel(ctx), conn, name)
	l.State, l.Detail = StateAbandoned, who+"; that run did not finish"
	if m.Kept {
		l.State, l.Detail = StateKept, who+"; kept with --keep"
	}
	if drop == nil || !drop(l) {
		return l, nil
	}
	return w.dropLeftover(ctx, conn, l)
}

func (w *Workload) dropLeftover(ctx context.Context, conn *sql.Conn, l Leftover) (Leftover, error) {
	if _, err := conn.ExecContext(ctx, w.mustSQL("rt_drop_schema")); err != nil {
		return l, fmt.Errorf("drop leftover schema %s: %w", l.Schema, err)
	}
	l.Detail += "; dropped"
	return l, nil
}
