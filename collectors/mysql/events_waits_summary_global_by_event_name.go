package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// EventsWaitsSummaryGlobalByEventName reads performance_schema's wait
// summary for InnoDB's latches (the index latch index_tree_rw_lock, the
// buffer pool and flush list mutexes, the lock system), InnoDB's file I/O
// and the SQL layer's table and metadata locks, as waits.<instrument> (how
// many acquisitions) and waits.<instrument>_ms (how long they took): exact
// differences of the server's totals, server-wide.
//
// What it cannot give: InnoDB row-lock waits have no performance_schema
// instrument (Innodb_row_lock_waits/_time in global_status count them), and
// MariaDB 10.11's setup_instruments lists no buffer-page latch
// (buf_block_t's lock): index_tree_rw_lock is the nearest. Whether a MySQL
// build instruments it was not checked.
type EventsWaitsSummaryGlobalByEventName struct{}

func (EventsWaitsSummaryGlobalByEventName) Name() string {
	return "events_waits_summary_global_by_event_name"
}

// Supports is nil: whether performance_schema is on is read with the
// numbers (a restart is the only way to change it).
func (EventsWaitsSummaryGlobalByEventName) Supports(dialects.Server) error { return nil }

const psGrant = "GRANT SELECT ON performance_schema.* TO "

func (EventsWaitsSummaryGlobalByEventName) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, _ collectors.Scope) ([]collectors.Counter, error) {
	var psOn bool
	if err := queries.QueryRow(ctx, qr, my.Name, "performance_schema_on", s.VersionNum).Scan(&psOn); err != nil {
		return nil, err
	}
	if !psOn {
		return nil, fmt.Errorf("%w: %s", dialects.ErrUnsupported, my.PerfSchemaOff)
	}
	var global bool
	err := queries.QueryRow(ctx, qr, my.Name, "global_instrumentation", s.VersionNum).Scan(&global)
	if pe := my.AsPrivilegeError(err, s, "SELECT on performance_schema", psGrant+s.Prop(my.PropHostUser)); pe != nil {
		return nil, pe
	}
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	if !global {
		return nil, fmt.Errorf("%w: the performance_schema consumer global_instrumentation is off, so nothing is summarised (fix: %s)", dialects.ErrUnsupported, my.PerfSchemaEnable)
	}
	rows, err := queries.Query(ctx, qr, my.Name, "events_waits_summary_global_by_event_name", s.VersionNum)
	if pe := my.AsPrivilegeError(err, s, "SELECT on performance_schema", psGrant+s.Prop(my.PropHostUser)); pe != nil {
		return nil, pe
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	type row struct {
		name         string
		count, picos float64
		timed        bool
	}
	var on []row
	var off []string
	for rows.Next() {
		var r row
		var enabled bool
		if err := rows.Scan(&r.name, &r.count, &r.picos, &enabled, &r.timed); err != nil {
			return nil, err
		}
		if !enabled {
			// A disabled instrument keeps its old total: a difference would say zero.
			off = append(off, r.name)
			continue
		}
		on = append(on, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(on) == 0 {
		return nil, fmt.Errorf("%w: the InnoDB, table-lock and metadata-lock wait instruments are off (%d of them) (fix: %s)", dialects.ErrUnsupported, len(off), my.PerfSchemaEnable)
	}
	var note string
	if len(off) > 0 {
		note = fmt.Sprintf("%d of %d instruments are off and not counted (e.g. %s; fix: %s)", len(off), len(off)+len(on), off[0], my.PerfSchemaEnable)
	}
	const view = "performance_schema.events_waits_summary_global_by_event_name"
	var out []collectors.Counter
	for _, r := range on {
		m := result.WaitsPrefix + strings.ToLower(r.name)
		c := collectors.NewCounter(collectors.DB, "", result.Family(m), r.count, result.Exact, view+".COUNT_STAR event_name="+r.name+" (every acquisition, contended or not; whole server)", "")
		c.Note = note
		out = append(out, c)
		if r.timed { // an untimed instrument counts, with no time
			ms := collectors.NewCounter(collectors.DB, "", result.Family(m+"_ms"), r.picos/1e9, result.Exact, view+".SUM_TIMER_WAIT / 10^9 event_name="+r.name+" (time to acquire, picoseconds to ms; whole server)", "")
			ms.Note = note
			out = append(out, ms)
		}
	}
	return out, nil
}
