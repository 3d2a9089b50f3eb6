package oracle

import (
	"context"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	ora "github.com/writeamp/writeamp/dialects/oracle"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// VSysstat reads the redo, undo and B-tree split counters: the instance's
// from V$SYSSTAT outside a CDB and in its root, the PDB's own from
// V$CON_SYSSTAT when connected to a pluggable database (CON_ID > 1). Every
// other session's work in the window is included.
type VSysstat struct{}

func (VSysstat) Name() string                     { return "v_sysstat" }
func (VSysstat) Supports(s dialects.Server) error { return unsupportedVersion(s) }

type sysstat struct {
	metric *result.Info
	note   string
}

var sysstats = map[string]sysstat{
	"redo size":               {result.LogBytes, ""},
	"redo entries":            {result.LogRecords, ""},
	"redo wastage":            {result.RedoWastageBytes, "unused space in redo blocks written at each log flush"},
	"undo change vector size": {result.UndoBytes, ""},
	"db block changes":        {result.BlockChanges, ""},
	"leaf node splits":        {result.PageSplits, "B-tree leaf block splits, 90-10 splits included"},
	"leaf node 90-10 splits":  {result.LeafNode9010Splits, "splits at the right edge of an index (ever-increasing keys)"},
	"branch node splits":      {result.BranchNodeSplits, ""},
}

func (VSysstat) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, _ collectors.Scope) ([]collectors.Counter, error) {
	block, view, grant, scope := "v_sysstat", "V$SYSSTAT", "v_$sysstat", "instance-wide, all sessions"
	if ora.InPDB(s) {
		block, view, grant, scope = "v_con_sysstat", "V$CON_SYSSTAT", "v_$con_sysstat", "this PDB, CON_ID "+s.Prop(ora.PropConID)+", all its sessions"
	}
	rows, err := queries.Query(ctx, qr, ora.Name, block, s.VersionNum)
	if err != nil {
		return nil, ora.AsPrivilegeError(err, s, grant)
	}
	defer rows.Close()
	id := startIdentity(s)
	var out []collectors.Counter
	for rows.Next() {
		var name string
		var value int64
		if err := rows.Scan(&name, &value); err != nil {
			return nil, err
		}
		st, ok := sysstats[name]
		if !ok {
			continue
		}
		c := collectors.NewCounter(collectors.DB, "", st.metric, float64(value), result.Exact, view+" '"+name+"' ("+scope+")", id)
		c.Note = st.note
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, ora.AsPrivilegeError(err, s, grant)
	}
	return out, nil
}
