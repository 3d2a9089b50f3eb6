package mysql

import (
	"context"
	"database/sql"
	"strings"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	my "github.com/writeamp/writeamp/dialects/mysql"
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
// workload's sessions are told from other clients' by their program_name
// connection attribute (t.ApplicationName) when performance_schema shows
// connection attributes; otherwise every other active session is sampled,
// and the figures say so.
func (Processlist) Start(ctx context.Context, db *sql.DB, s dialects.Server, t collectors.SampleTarget) (collectors.Sampling, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	var notes []string
	app := t.ApplicationName
	if app != "" && !attrsVisible(ctx, conn, s) {
		notes = append(notes, "performance_schema is off, so the workload's sessions cannot be told from other clients' (by their program_name connection attribute): every other active session was sampled")
		app = ""
	}
	block, source := "processlist_sample", "information_schema.PROCESSLIST state, INNODB_TRX lock waits"
	if !s.Has(my.CapInnodbMetrics) {
		// INNODB_TRX needs PROCESS, as INNODB_METRICS does.
		block, source = "processlist_sample_states", "information_schema.PROCESSLIST state"
		notes = append(notes, "without PROCESS, InnoDB lock waits are not told apart (INNODB_TRX) and only this login's sessions are listed: GRANT PROCESS ON *.* TO "+s.Prop(my.PropHostUser))
	}
	stmt, err := conn.PrepareContext(ctx, q(block, s))
	if err != nil {
		conn.Close()
		return nil, err
	}
	read := func(ctx context.Context) ([]collectors.SessionState, error) {
		rows, err := stmt.QueryContext(ctx, t.Operation != nil, app, app)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []collectors.SessionState
		for rows.Next() {
			var id int64
			var state, info, lockType string
			var lockWait bool
			if err := rows.Scan(&id, &state, &info, &lockWait, &lockType); err != nil {
				return nil, err
			}
			class, event := classifyProcess(state, lockWait, lockType)
			st := collectors.SessionState{Class: class, Event: event}
			if t.Operation != nil {
				st.Op = t.Operation(info)
			}
			out = append(out, st)
		}
		return out, rows.Err()
	}
	sh := collectors.StartShares(ctx, t.Every, source, read, func() { stmt.Close(); conn.Close() })
	sh.Note = strings.Join(notes, "; ")
	return sh, nil
}

// attrsVisible reports whether this session's own program_name connection
// attribute can be read: performance_schema is on and lists attributes.
func attrsVisible(ctx context.Context, conn *sql.Conn, s dialects.Server) bool {
	if !s.Has(my.CapPerfSchema) {
		return false
	}
	var n int
	if err := conn.QueryRowContext(ctx, q("connect_attrs_self", s), my.ProgramName).Scan(&n); err != nil {
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
		return "Lock", slugState(rest)
	}
	if strings.TrimSpace(state) == "" {
		return "State", "none"
	}
	return "State", slugState(state)
}

// slugState turns "Writing to net" into writing_to_net.
func slugState(s string) string {
	var b strings.Builder
	under := false
	for _, r := range strings.ToLower(strings.TrimSpace(s)) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			under = false
			continue
		}
		if !under && b.Len() > 0 {
			b.WriteByte('_')
			under = true
		}
	}
	return strings.TrimSuffix(b.String(), "_")
}
