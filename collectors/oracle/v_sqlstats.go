package oracle

import (
	"context"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	ora "github.com/writeamp/writeamp/dialects/oracle"
	"github.com/writeamp/writeamp/queries"
)

// VSqlstats reads V$SQLSTATS per SQL_ID and plan: executions, rows
// processed, physical write bytes and elapsed time. Oracle keeps no
// per-statement redo, so the statements are ranked by rows; the view has no
// creation time per entry, so one aged out and reloaded in the window shows
// as a reset (its counts went down) or is undercounted.
type VSqlstats struct{}

func (VSqlstats) Name() string                     { return "v_sqlstats" }
func (VSqlstats) Supports(s dialects.Server) error { return unsupportedVersion(s) }

func (VSqlstats) Statements(ctx context.Context, qr dialects.Querier, s dialects.Server) (*collectors.Statements, error) {
	rows, err := queries.Query(ctx, qr, ora.Name, "v_sqlstats", s.VersionNum)
	if err != nil {
		return nil, ora.AsPrivilegeError(err, s, "v_$sqlstats")
	}
	defer rows.Close()
	st := &collectors.Statements{
		View: "V$SQLSTATS",
		Sources: map[string]string{"calls": "EXECUTIONS", "rows": "ROWS_PROCESSED",
			"physical_write_bytes": "PHYSICAL_WRITE_BYTES", "exec_ms": "ELAPSED_TIME (µs / 1000)"},
		Merge: "entries are per SQL_ID and plan: statements with the same text (literals included) share one; bind variables keep one entry per statement",
	}
	for rows.Next() {
		var r collectors.StatementRow
		var calls, nrows, wbytes, elapsedUS int64
		if err := rows.Scan(&r.Key, &r.Text, &calls, &nrows, &wbytes, &elapsedUS); err != nil {
			return nil, err
		}
		r.Values = map[string]float64{"calls": float64(calls), "rows": float64(nrows), "physical_write_bytes": float64(wbytes), "exec_ms": float64(elapsedUS) / 1000}
		st.Rows = append(st.Rows, r)
	}
	if err := rows.Err(); err != nil {
		return nil, ora.AsPrivilegeError(err, s, "v_$sqlstats")
	}
	return st, nil
}
