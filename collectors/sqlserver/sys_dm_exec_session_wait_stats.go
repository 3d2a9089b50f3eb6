package sqlserver

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	ms "github.com/writeamp/writeamp/dialects/sqlserver"
)

// SysDmExecSessionWaitStats gives the waits of the workload's own sessions
// (SQL Server 2016+): sys.dm_exec_session_wait_stats restricted to the
// sessions of the workload's application name (writeamp names its
// connections 'writeamp'), polled while the window is open, as
// session_waits.<type> and session_waits.<type>_ms: PAGELATCH_EX (last-page
// insert contention), PAGEIOLATCH_*, WRITELOG, the lock waits LCK_M_*, the
// log rate governors. sys_dm_os_wait_stats has the same types for the whole
// instance; these leave out every other session's.
type SysDmExecSessionWaitStats struct{}

func (SysDmExecSessionWaitStats) Name() string { return "sys_dm_exec_session_wait_stats" }

// Supports needs the server permission: without it the view shows only the
// sampler's own session, silently, which would read as "no waits".
func (SysDmExecSessionWaitStats) Supports(s dialects.Server) error {
	if err := unsupportedVersion(s); err != nil {
		return err
	}
	if s.Flavor == ms.FlavorAzureSQLDatabase {
		return need(s, ms.CapViewDatabaseStateFull, ms.DatabaseStateScope)
	}
	if ok, probed := s.Caps[ms.CapViewServerState]; probed && !ok {
		return need(s, ms.CapViewServerState, ms.ServerScope)
	}
	return nil
}

// Start polls the view from a connection of its own until Stop.
func (c SysDmExecSessionWaitStats) Start(ctx context.Context, db *sql.DB, s dialects.Server, t collectors.SampleTarget) (collectors.Sampling, error) {
	if err := c.Supports(s); err != nil {
		return nil, err
	}
	text, err := collectors.SQL(ms.Name, "sys_dm_exec_session_wait_stats", s)
	if err != nil {
		return nil, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	app, ours := t.ApplicationName, sessionFilter(t)
	if ours != nil {
		app = "" // every session is followed; the runner names its workers'
	}
	read := func(ctx context.Context) ([]collectors.SessionWait, error) {
		rows, err := conn.QueryContext(ctx, text, app)
		if err != nil {
			return nil, ms.AsPrivilegeError(err, s, ms.ServerScope)
		}
		defer rows.Close()
		var out []collectors.SessionWait
		for rows.Next() {
			var w collectors.SessionWait
			var n, waitMS int64
			if err := rows.Scan(&w.ID, &w.Session, &w.Event, &n, &waitMS); err != nil {
				return nil, err
			}
			w.Count, w.Millis = float64(n), float64(waitMS)
			out = append(out, w)
		}
		return out, rows.Err()
	}
	who := "every user session"
	switch {
	case ours != nil:
		who = "the workload's sessions"
	case app != "":
		who = fmt.Sprintf("program_name '%s'", app)
	}
	return collectors.StartSessionWaits(ctx, t.Every, "sys.dm_exec_session_wait_stats ("+who+")", read, ours, func() { conn.Close() })
}

// sessionFilter is the runner's "is this session one of the workload's",
// nil when it did not say.
func sessionFilter(t collectors.SampleTarget) func(string) bool {
	if t.Sessions == nil {
		return nil
	}
	return func(id string) bool { _, ok := t.Sessions(id); return ok }
}
