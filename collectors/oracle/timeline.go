package oracle

import (
	"context"
	"database/sql"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	ora "github.com/writeamp/writeamp/dialects/oracle"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

func init() { collectors.RegisterTimeline(ora.Name, Timeline{}) }

// Timeline is Oracle's interval sampler: 'redo size' and 'user commits'
// (V$SYSSTAT, or V$CON_SYSSTAT in a PDB). Oracle has no server-wide row
// counter, so rows are not sampled. Never run against a server.
type Timeline struct{}

// late: system statistics take a session's figures as its calls complete.
const late = "approx per interval: V$SYSSTAT adds a session's statistics as its calls complete, so a long call shows in the interval it ends in"

func (Timeline) Series(s dialects.Server, _ []collectors.Object) ([]result.SampleSeries, []string) {
	if err := (VSysstat{}).Supports(s); err != nil {
		return nil, []string{"not sampled: " + err.Error()}
	}
	if ora.IsStandby(s) {
		// Its 'redo size' would draw a flat zero under the primary's work.
		return nil, []string{"not sampled: " + s.Reason(ora.CapWriteCounters).Text}
	}
	view, scope := "V$SYSSTAT", "instance-wide, all sessions"
	if ora.InPDB(s) {
		view, scope = "V$CON_SYSSTAT", "this PDB, all its sessions"
	}
	return []result.SampleSeries{
		{Name: result.LogBytes.Name, Unit: result.Bytes, Exactness: result.Approx, Source: view + " 'redo size' (" + scope + ")", Note: late},
		{Name: result.TransactionsCommitted.Name, Unit: result.Count, Exactness: result.Approx, Source: view + " 'user commits' (" + scope + ")", Note: late},
	}, []string{"rows not sampled: Oracle keeps no server-wide count of rows inserted, updated or deleted"}
}

func (Timeline) Read(ctx context.Context, conn *sql.Conn, s dialects.Server, _ []collectors.Object) (map[string]float64, error) {
	block, grant := "timeline", "v_$sysstat"
	if ora.InPDB(s) {
		block, grant = "timeline_con", "v_$con_sysstat"
	}
	rows, err := queries.Query(ctx, conn, ora.Name, block, s.VersionNum)
	if err != nil {
		return nil, ora.AsPrivilegeError(err, s, grant)
	}
	defer rows.Close()
	out := map[string]float64{}
	for rows.Next() {
		var name string
		var value int64
		if err := rows.Scan(&name, &value); err != nil {
			return nil, err
		}
		switch name {
		case "redo size":
			out[result.LogBytes.Name] = float64(value)
		case "user commits":
			out[result.TransactionsCommitted.Name] = float64(value)
		}
	}
	return out, rows.Err()
}
