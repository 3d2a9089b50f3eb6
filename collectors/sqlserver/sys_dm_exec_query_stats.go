package sqlserver

import (
	"context"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	ms "github.com/writeamp/writeamp/dialects/sqlserver"
	"github.com/writeamp/writeamp/queries"
)

// SysDmExecQueryStats reads the per-statement statistics of the plan cache
// for this database: executions, rows, logical writes (pages dirtied) and
// elapsed time. A statement whose plan left the cache in the window is
// missing from it, and one recompiled counts from its new creation_time.
// SQL Server keeps no per-statement log bytes, so the statements are ranked
// by rows.
type SysDmExecQueryStats struct{}

func (SysDmExecQueryStats) Name() string { return "sys_dm_exec_query_stats" }

func (SysDmExecQueryStats) Supports(s dialects.Server) error {
	if err := unsupportedVersion(s); err != nil {
		return err
	}
	if s.Has(ms.CapDatabaseWaitStats) { // Azure SQL Database: this database's, with VIEW DATABASE STATE
		return need(s, ms.CapViewDatabaseStateFull, ms.DatabaseStateScope)
	}
	return need(s, ms.CapInstanceDMVs, ms.InstanceScope)
}

func (SysDmExecQueryStats) Statements(ctx context.Context, qr dialects.Querier, s dialects.Server) (*collectors.Statements, error) {
	sc := ms.InstanceScope
	if s.Has(ms.CapDatabaseWaitStats) {
		sc = ms.DatabaseStateScope
	}
	rows, err := queries.Query(ctx, qr, ms.Name, "sys_dm_exec_query_stats", s.VersionNum)
	if err != nil {
		return nil, ms.AsPrivilegeError(err, s, sc)
	}
	defer rows.Close()
	st := &collectors.Statements{
		View: "sys.dm_exec_query_stats",
		Sources: map[string]string{"calls": "execution_count", "rows": "total_rows",
			"logical_writes": "total_logical_writes", "exec_ms": "total_elapsed_time (µs / 1000)"},
		Merge: "entries are per statement of a cached plan: a statement's entries from several plans are listed apart, and a plan evicted from the cache takes its entries with it",
	}
	for rows.Next() {
		var r collectors.StatementRow
		var calls, nrows, writes, elapsedUS int64
		if err := rows.Scan(&r.Key, &r.Text, &r.Since, &calls, &nrows, &writes, &elapsedUS); err != nil {
			return nil, err
		}
		r.Values = map[string]float64{"calls": float64(calls), "rows": float64(nrows), "logical_writes": float64(writes), "exec_ms": float64(elapsedUS) / 1000}
		st.Rows = append(st.Rows, r)
	}
	if err := rows.Err(); err != nil {
		return nil, ms.AsPrivilegeError(err, s, sc)
	}
	return st, nil
}
