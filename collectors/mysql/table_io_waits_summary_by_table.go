package mysql

import (
	"context"
	"fmt"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// TableIOWaitsSummaryByTable reads the rows inserted, updated and deleted
// per table from performance_schema's table I/O summary: what a wrapped
// command wrote in the measured tables, which InnoDB does not count (its
// row counters are server-wide). Where performance_schema does not count
// table I/O, MariaDB's TABLE_STATISTICS (userstat) may (TableStatistics);
// with neither, per-table rows are missing and check's /op is per command.
type TableIOWaitsSummaryByTable struct{}

func (TableIOWaitsSummaryByTable) Name() string { return "table_io_waits_summary_by_table" }

// Supports refuses only when no per-table row counter is there at all, with
// both reasons (TableStatistics stays silent then).
func (TableIOWaitsSummaryByTable) Supports(s dialects.Server) error {
	if s.Has(my.CapTableIO) || s.Has(my.CapUserstat) {
		return nil
	}
	u := s.Unsupported(my.CapTableIO, "no rows written per table")
	if my.IsMariaDB(s) {
		us := s.Reason(my.CapUserstat)
		us.Text = "nor does INFORMATION_SCHEMA.TABLE_STATISTICS: " + us.Text
		u.Reason = dialects.Both(u.Reason, us)
	}
	u.Lacks = []string{result.RowsInserted.Name, result.RowsUpdated.Name, result.RowsDeleted.Name}
	return u
}

func (TableIOWaitsSummaryByTable) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, sc collectors.Scope) ([]collectors.Counter, error) {
	if !s.Has(my.CapTableIO) {
		return nil, nil
	}
	return tableRows(ctx, qr, s, sc, "table_io_waits_summary_by_table", []*result.Info{result.RowsInserted, result.RowsUpdated, result.RowsDeleted},
		[]string{"COUNT_INSERT", "COUNT_UPDATE", "COUNT_DELETE"}, "performance_schema.table_io_waits_summary_by_table %s (rows the SQL layer wrote to the table)")
}

// tableRows reads one row per table: schema, name, CREATE_TIME (the
// identity: a recreated table restarts its counters), then one count per
// metric.
func tableRows(ctx context.Context, qr dialects.Querier, s dialects.Server, sc collectors.Scope, query string, metrics []*result.Info, columns []string, source string) ([]collectors.Counter, error) {
	rows, err := queries.Query(ctx, qr, my.Name, query, s.VersionNum, schemaArgs(sc)...)
	if pe := my.AsPrivilegeError(err, s, "SELECT on "+query, "GRANT SELECT ON performance_schema.* TO "+s.Prop(my.PropHostUser)); pe != nil {
		return nil, pe
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []collectors.Counter
	vals := make([]float64, len(metrics))
	for rows.Next() {
		var schema, table, created string
		dest := []any{&schema, &table, &created}
		for i := range vals {
			dest = append(dest, &vals[i])
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		if !sc.InScope(schema, table) {
			continue
		}
		for i, m := range metrics {
			out = append(out, collectors.NewCounter(collectors.Table, collectors.FQN(schema, table), m, vals[i], result.Exact, fmt.Sprintf(source, columns[i]), created))
		}
	}
	return out, rows.Err()
}
