package oracle

import (
	"context"
	"strings"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	ora "github.com/writeamp/writeamp/dialects/oracle"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// VSystemEvent reads the write-relevant wait events of the instance: index
// block contention ('enq: TX - index contention'), hot blocks ('buffer busy
// waits') and commit waits ('log file sync', 'log file parallel write'), as
// waits.<event> and waits.<event>_ms: V$SYSTEM_EVENT outside a CDB and in
// its root, V$CON_SYSTEM_EVENT (the PDB's own) in a pluggable database.
type VSystemEvent struct{}

func (VSystemEvent) Name() string                     { return "v_system_event" }
func (VSystemEvent) Supports(s dialects.Server) error { return unsupportedVersion(s) }

func (VSystemEvent) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, _ collectors.Scope) ([]collectors.Counter, error) {
	block, view, grant, scope := "v_system_event", "V$SYSTEM_EVENT", "v_$system_event", "instance-wide"
	if ora.InPDB(s) {
		block, view, grant, scope = "v_con_system_event", "V$CON_SYSTEM_EVENT", "v_$con_system_event", "this PDB, CON_ID "+s.Prop(ora.PropConID)
	}
	rows, err := queries.Query(ctx, qr, ora.Name, block, s.VersionNum)
	if err != nil {
		return nil, ora.AsPrivilegeError(err, s, grant)
	}
	defer rows.Close()
	id := startIdentity(s)
	// Wait times are kept only with TIMED_STATISTICS, which BASIC turns off.
	timeExact, timeNote := result.Exact, ""
	if strings.EqualFold(s.Prop(ora.PropStatisticsLevel), "BASIC") {
		timeExact, timeNote = result.Approx, "STATISTICS_LEVEL is BASIC: wait times may not be timed (TIMED_STATISTICS)"
	}
	var out []collectors.Counter
	for rows.Next() {
		var event string
		var waits, micro int64
		if err := rows.Scan(&event, &waits, &micro); err != nil {
			return nil, err
		}
		m := "waits." + slug(event)
		t := collectors.NewCounter(collectors.DB, "", result.Family(m+"_ms"), float64(micro)/1000, timeExact, view+".time_waited_micro / 1000 event='"+event+"' ("+scope+")", id)
		t.Note = timeNote
		out = append(out,
			collectors.NewCounter(collectors.DB, "", result.Family(m), float64(waits), result.Exact, view+".total_waits event='"+event+"' ("+scope+")", id), t)
	}
	if err := rows.Err(); err != nil {
		return nil, ora.AsPrivilegeError(err, s, grant)
	}
	return out, nil
}
