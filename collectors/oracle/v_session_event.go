package oracle

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	ora "github.com/writeamp/writeamp/dialects/oracle"
)

// VSessionEvent gives the waits of the workload's own sessions:
// V$SESSION_EVENT for the user sessions whose V$SESSION.PROGRAM is the
// workload's (writeamp's connections say 'writeamp'), polled while the window
// is open, as session_waits.<event> and session_waits.<event>_ms: 'enq: TX -
// index contention' (concurrent inserts into one index block), 'buffer busy
// waits' and 'read by other session' (a hot block), 'log file sync'
// (commits), 'enq: TX - row lock contention'. v_system_event has the same
// events for the whole instance (or PDB); these leave out other sessions'.
type VSessionEvent struct{}

func (VSessionEvent) Name() string                     { return "v_session_event" }
func (VSessionEvent) Supports(s dialects.Server) error { return unsupportedVersion(s) }

// Start polls the view from a connection of its own until Stop.
func (c VSessionEvent) Start(ctx context.Context, db *sql.DB, s dialects.Server, t collectors.SampleTarget) (collectors.Sampling, error) {
	if err := c.Supports(s); err != nil {
		return nil, err
	}
	text, err := collectors.SQL(ora.Name, "v_session_event", s)
	if err != nil {
		return nil, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	var program any // NULL: every session (Oracle reads '' as NULL anyway)
	var ours func(string) bool
	switch {
	case t.Sessions != nil:
		// Every session is followed; the runner names its workers' by SID.
		ours = func(id string) bool { _, ok := t.Sessions(id); return ok }
	case t.ApplicationName != "":
		program = t.ApplicationName
	}
	timeNote := ""
	if strings.EqualFold(s.Prop(ora.PropStatisticsLevel), "BASIC") {
		timeNote = "; STATISTICS_LEVEL is BASIC: wait times may not be timed (TIMED_STATISTICS)"
	}
	read := func(ctx context.Context) ([]collectors.SessionWait, error) {
		rows, err := conn.QueryContext(ctx, text, program, program)
		if err != nil {
			return nil, ora.AsPrivilegeError(err, s, "v_$session_event")
		}
		defer rows.Close()
		var out []collectors.SessionWait
		for rows.Next() {
			var w collectors.SessionWait
			var micro float64
			if err := rows.Scan(&w.ID, &w.Session, &w.Event, &w.Count, &micro); err != nil {
				return nil, err
			}
			w.Millis = micro / 1000
			out = append(out, w)
		}
		return out, rows.Err()
	}
	who := "every user session"
	switch {
	case ours != nil:
		who = "the workload's sessions"
	case program != nil:
		who = fmt.Sprintf("PROGRAM '%s'", t.ApplicationName)
	}
	return collectors.StartSessionWaits(ctx, t.Every, "V$SESSION_EVENT total_waits, time_waited_micro / 1000 ("+who+timeNote+")", read, ours, func() { conn.Close() })
}
