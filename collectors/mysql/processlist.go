package mysql

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/queries"
)

// Processlist samples what the workload's sessions are doing, every 10 ms
// from a connection of its own, with performance_schema on or off:
// information_schema.PROCESSLIST for each active session's state, and
// INNODB_TRX with INNODB_LOCKS (MySQL 8: performance_schema.data_locks) for
// whether InnoDB has it waiting for a row or table lock. MySQL and MariaDB
// keep no per-session wait counters outside performance_schema, so, as on
// PostgreSQL, the shares of the sampled active time are what there is.
//
// A session waiting for an InnoDB lock is Lock.row_lock (RECORD) or
// Lock.table_lock (TABLE); a "Waiting for ... lock" state is
// Lock.<that lock> (metadata_lock, table_level_lock, ...); any other active
// session is State.<its processlist state> (commit, updating, sending_data,
// writing_to_net, ...): the processlist says which phase a statement is in,
// not whether it is on CPU or waiting for I/O, so nothing here is called
// CPU.running.
type Processlist struct{}

func (Processlist) Name() string                   { return "processlist" }
func (Processlist) Supports(dialects.Server) error { return nil }

// Start reads the processlist every t.Every (10 ms) until Stop. The
// workload's sessions are those t.Sessions names by processlist id (a
// built-in workload's runner), else those whose program_name connection
// attribute is t.ApplicationName when performance_schema shows connection
// attributes; otherwise every other active session is sampled, and the
// figures say so.
func (Processlist) Start(ctx context.Context, db *sql.DB, s dialects.Server, t collectors.SampleTarget) (collectors.Sampling, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	var notes []string
	app := t.ApplicationName
	if t.Sessions != nil {
		app = "" // the processlist ids say which sessions are the workload's
	}
	if app != "" && !attrsVisible(ctx, conn, s) {
		notes = append(notes, "performance_schema is off, so the workload's sessions cannot be told from other clients' (by their program_name connection attribute): every other active session was sampled")
		app = ""
	}
	source := "information_schema.PROCESSLIST states"
	var trxStmt *sql.Stmt
	if s.Has(my.CapInnodbMetrics) {
		// INNODB_TRX needs PROCESS, as INNODB_METRICS does.
		source = "information_schema.PROCESSLIST states, InnoDB lock waits from INNODB_TRX every " + lockWaitEvery.String()
		notes = append(notes, "InnoDB refreshes INNODB_TRX only when it was not read in the last 100 ms, so lock waits are read every "+
			lockWaitEvery.String()+" and counted while the same statement runs: a wait shorter than that may be missed, one that just ended may count one read longer")
		text, err := collectors.SQL(my.Name, "innodb_lock_waits_sample", s)
		if err == nil {
			trxStmt, err = conn.PrepareContext(ctx, text)
		}
		if err != nil {
			conn.Close()
			return nil, err
		}
	} else {
		notes = append(notes, "without PROCESS, InnoDB lock waits are not told apart (INNODB_TRX) and only this login's sessions are listed: GRANT PROCESS ON *.* TO "+s.Prop(my.PropHostUser))
	}
	if app == "" && t.Sessions == nil {
		// A wrapped command's sessions are not known: every session but
		// this one is the command's as far as the sampler can tell, and
		// writeamp's other session in the window, the interval sampler
		// (--interval, or measure's live line), is among them for the few
		// milliseconds of each of its reads.
		source += " of every other active session of the server (writeamp's interval sampler's reads included)"
	}
	text, err := collectors.SQL(my.Name, "processlist_sample", s)
	var stmt *sql.Stmt
	if err == nil {
		stmt, err = conn.PrepareContext(ctx, text)
	}
	if err != nil {
		if trxStmt != nil {
			trxStmt.Close()
		}
		conn.Close()
		return nil, err
	}
	lw := &lockWaits{stmt: trxStmt}
	read := func(ctx context.Context) ([]collectors.SessionState, error) {
		procs, err := readProcesses(ctx, stmt, t.Operation != nil && t.Sessions == nil, app)
		if err != nil {
			return nil, err
		}
		if err := lw.refresh(ctx, procs); err != nil {
			return nil, err
		}
		var out []collectors.SessionState
		for _, p := range procs {
			lockType, waiting := lw.waiting(p)
			class, event := classifyProcess(p.state, waiting, lockType)
			st := collectors.SessionState{Class: class, Event: event}
			switch {
			case t.Sessions != nil:
				op, ours := t.Sessions(strconv.FormatInt(p.id, 10))
				if !ours {
					continue
				}
				st.Op = op
			case t.Operation != nil:
				st.Op = t.Operation(p.info)
			}
			out = append(out, st)
		}
		return out, nil
	}
	sh := collectors.StartShares(ctx, t.Every, source, read, func() {
		stmt.Close()
		if trxStmt != nil {
			trxStmt.Close()
		}
		conn.Close()
	})
	sh.Note = strings.Join(notes, "; ")
	return sh, nil
}

// lockWaitEvery is how often INNODB_TRX is read: InnoDB refreshes the copy
// it shows only when nobody read it in the last 100 ms
// (trx0i_s.cc can_cache_be_updated), so reading it every 10 ms would show
// the same stale copy for as long as the sampler runs.
const lockWaitEvery = 110 * time.Millisecond

type process struct {
	id          int64
	state, info string
	stmt        string // the statement's text
	queryID     int64  // MariaDB's QUERY_ID (0 on MySQL)
}

func readProcesses(ctx context.Context, stmt *sql.Stmt, wantInfo bool, app string) ([]process, error) {
	rows, err := stmt.QueryContext(ctx, wantInfo, app, app)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []process
	for rows.Next() {
		var p process
		if err := rows.Scan(&p.id, &p.state, &p.info, &p.stmt, &p.queryID); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// lockWaits is what the last read of INNODB_TRX said: which sessions wait
// for a lock, in which statement, on which kind of lock.
type lockWaits struct {
	stmt *sql.Stmt
	last time.Time
	by   map[int64]lockWait
}

type lockWait struct {
	queryID  int64
	stmt     string
	lockType string
}

// refresh reads INNODB_TRX when lockWaitEvery has passed, tying each wait
// to the statement the session runs now (a row of INNODB_TRX whose query is
// not the session's current statement is from a statement that has ended).
func (l *lockWaits) refresh(ctx context.Context, procs []process) error {
	if l.stmt == nil || time.Since(l.last) < lockWaitEvery {
		return nil
	}
	l.last = time.Now()
	rows, err := l.stmt.QueryContext(ctx)
	if err != nil {
		return err
	}
	defer rows.Close()
	now := map[int64]process{}
	for _, p := range procs {
		now[p.id] = p
	}
	l.by = map[int64]lockWait{}
	for rows.Next() {
		var id int64
		var query, lockType string
		if err := rows.Scan(&id, &query, &lockType); err != nil {
			return err
		}
		if p, ok := now[id]; ok && query != "" && strings.HasPrefix(p.stmt, query) {
			l.by[id] = lockWait{queryID: p.queryID, stmt: p.stmt, lockType: lockType}
		}
	}
	return rows.Err()
}

// waiting says whether p waits for a lock: the last read saw it waiting in
// the statement it still runs.
func (l *lockWaits) waiting(p process) (lockType string, ok bool) {
	w, ok := l.by[p.id]
	if !ok || w.queryID != p.queryID || w.stmt != p.stmt {
		return "", false
	}
	return w.lockType, true
}

// attrsVisible reports whether this session's own program_name connection
// attribute can be read: performance_schema is on and lists attributes
// (off, its tables answer with no rows).
func attrsVisible(ctx context.Context, conn *sql.Conn, s dialects.Server) bool {
	var n int
	if err := queries.QueryRow(ctx, conn, my.Name, "connect_attrs_self", s.VersionNum, my.ProgramName).Scan(&n); err != nil {
		return false
	}
	return n > 0
}

// classifyProcess names what a session is doing: an InnoDB lock wait, a
// lock the SQL layer waits for, or its processlist state.
func classifyProcess(state string, lockWait bool, lockType string) (class, event string) {
	if lockWait {
		switch strings.ToUpper(lockType) {
		case "RECORD":
			return "Lock", "row_lock"
		case "TABLE":
			return "Lock", "table_lock"
		default:
			return "Lock", "innodb_lock"
		}
	}
	if rest, ok := strings.CutPrefix(state, "Waiting for "); ok && strings.HasSuffix(rest, " lock") {
		if rest == "table metadata lock" {
			return "Lock", "metadata_lock"
		}
		return "Lock", collectors.EventSlug(rest)
	}
	if strings.TrimSpace(state) == "" {
		return "State", "none"
	}
	return "State", collectors.EventSlug(state)
}
