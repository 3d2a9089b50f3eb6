package sqlserver

import (
	"context"
	"database/sql"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	ms "github.com/writeamp/writeamp/dialects/sqlserver"
	"github.com/writeamp/writeamp/result"
)

func init() { collectors.RegisterTimeline(ms.Name, Timeline{}) }

// Timeline is SQL Server's interval sampler: this database's log bytes
// flushed and committed write transactions from sys.dm_os_performance_counters.
// SQL Server keeps no cheap server-wide row counter (rows are counted per
// index partition), so rows are not sampled. Never run against a server.
type Timeline struct{}

func (Timeline) Series(s dialects.Server, _ []collectors.Object) ([]result.SampleSeries, []string) {
	if err := (SysDmOsPerformanceCounters{}).Supports(s); err != nil {
		return nil, []string{"not sampled: " + err.Error()}
	}
	series := []result.SampleSeries{
		{Name: result.LogBytes.Name, Unit: result.Bytes, Exactness: result.Approx, Source: perfCounters + " 'Log Bytes Flushed/sec' (this database)",
			Note: "log bytes as they are flushed to the log file, which trails their generation by the log buffer"},
		{Name: result.TransactionsCommitted.Name, Unit: result.Count, Exactness: result.Exact, Source: perfCounters + " 'Write Transactions/sec' (this database: transactions that wrote and committed)"},
	}
	notes := []string{"rows not sampled: SQL Server keeps rows written per index partition only (sys.dm_db_index_operational_stats), no cheap server-wide counter"}
	if s.Has(ms.CapAGSecondary) {
		// Redo commits the primary's transactions without a statement of
		// this copy's: the series would be a false zero.
		series = series[:1]
		notes = append(notes, "write transactions not sampled: "+s.Reason(ms.CapRowCounters).Text)
	}
	return series, notes
}

func (Timeline) Read(ctx context.Context, conn *sql.Conn, s dialects.Server, _ []collectors.Object) (map[string]float64, error) {
	text, err := collectors.SQL(ms.Name, "timeline", s)
	if err != nil {
		return nil, err
	}
	all, err := readPerfRows(ctx, conn, text, s)
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for counter, series := range map[string]string{"Log Bytes Flushed/sec": result.LogBytes.Name, "Write Transactions/sec": result.TransactionsCommitted.Name} {
		if c, ok := databaseCounter(all, counter, s.Database); ok {
			out[series] = c.Value
		}
	}
	return out, nil
}
