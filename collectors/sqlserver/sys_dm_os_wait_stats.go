package sqlserver

import (
	"context"
	"fmt"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	ms "github.com/writeamp/writeamp/dialects/sqlserver"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// SysDmOsWaitStats reads the write-relevant waits of the whole instance:
// last-page latch contention (PAGELATCH_EX), log flush waits (WRITELOG,
// LOGBUFFER) and log-rate throttling (LOG_RATE_GOVERNOR,
// HADR_THROTTLE_LOG_RATE_GOVERNOR, Hyperscale's RBIO_RG_*). Other databases'
// sessions add to them.
//
// On Azure SQL Database the same collector reads sys.dm_db_wait_stats: the
// same wait types for this database only (no other tenant's waits), with
// VIEW DATABASE STATE on every service objective, where sys.dm_os_wait_stats
// needs the server admin on Basic, S0, S1 and in elastic pools. One
// collector rather than two, so that a server never lists the other flavor's
// view among its missing numbers.
type SysDmOsWaitStats struct{}

func (SysDmOsWaitStats) Name() string { return "sys_dm_os_wait_stats" }

func (SysDmOsWaitStats) Supports(s dialects.Server) error {
	if err := unsupportedVersion(s); err != nil {
		return err
	}
	if s.Has(ms.CapDatabaseWaitStats) {
		return need(s, ms.CapViewDatabaseStateFull, ms.DatabaseStateScope)
	}
	return need(s, ms.CapInstanceDMVs, ms.InstanceScope)
}

func (SysDmOsWaitStats) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, _ collectors.Scope) ([]collectors.Counter, error) {
	if s.Has(ms.CapDatabaseWaitStats) {
		return collectWaits(ctx, qr, s, "sys_dm_db_wait_stats", "sys.dm_db_wait_stats", "this database", ms.DatabaseStateScope)
	}
	return collectWaits(ctx, qr, s, "sys_dm_os_wait_stats", "sys.dm_os_wait_stats", "whole instance", ms.InstanceScope)
}

// collectWaits reads waiting_tasks_count and wait_time_ms as
// waits.<type> and waits.<type>_ms. DBCC SQLPERF(...CLEAR) or a restart
// lowers them: a reset, caught by the diff.
func collectWaits(ctx context.Context, qr dialects.Querier, s dialects.Server, block, view, scope string, sc ms.Scope) ([]collectors.Counter, error) {
	rows, err := queries.Query(ctx, qr, ms.Name, block, s.VersionNum)
	if err != nil {
		return nil, ms.AsPrivilegeError(err, s, sc)
	}
	defer rows.Close()
	id := startIdentity(s)
	var out []collectors.Counter
	for rows.Next() {
		var typ string
		var n, waitMS int64
		if err := rows.Scan(&typ, &n, &waitMS); err != nil {
			return nil, err
		}
		m := waitMetric(typ)
		out = append(out,
			collectors.NewCounter(collectors.DB, "", result.Family(m), float64(n), result.Exact, fmt.Sprintf("%s.waiting_tasks_count wait_type=%s (%s)", view, typ, scope), id),
			collectors.NewCounter(collectors.DB, "", result.Family(m+"_ms"), float64(waitMS), result.Exact, fmt.Sprintf("%s.wait_time_ms wait_type=%s (%s)", view, typ, scope), id))
	}
	if err := rows.Err(); err != nil {
		return nil, ms.AsPrivilegeError(err, s, sc)
	}
	return out, nil
}
