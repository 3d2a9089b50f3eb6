package mysql

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

func init() { collectors.RegisterTimeline(my.Name, Timeline{}) }

// Timeline is the MySQL/MariaDB interval sampler: the redo LSN and the row
// counts from SHOW GLOBAL STATUS (the snapshot's own statement, no
// privilege), and InnoDB's transaction ends from INNODB_METRICS while the
// window has the trx monitors on. Status variables are summed over the
// live sessions when read, so a row shows in the interval its handler call
// ran in. Neither read starts an InnoDB transaction: no redo, no commit.
type Timeline struct{}

func (Timeline) Series(s dialects.Server, _ []collectors.Object) ([]result.SampleSeries, []string) {
	var out []result.SampleSeries
	var notes []string
	switch {
	case s.Has(my.CapLSNCurrent):
		out = append(out, result.SampleSeries{Name: result.LogBytes.Name, Unit: result.Bytes, Exactness: result.Exact,
			Source: "Innodb_lsn_current (redo LSN, whole server, all sessions)", Note: "the LSN at the moment of each reading: exact"})
	case s.Has(my.CapRedoLSN):
		out = append(out, result.SampleSeries{Name: result.LogBytes.Name, Unit: result.Bytes, Exactness: result.Exact,
			Source: "Innodb_redo_log_current_lsn (redo LSN, whole server, all sessions)",
			Note:   "the LSN at the moment of each reading; it counts the 512-byte block framing of the redo log (payload ≈ ΔLSN × 496/512)"})
	default:
		out = append(out, result.SampleSeries{Name: result.LogBytes.Name, Unit: result.Bytes, Exactness: result.Approx,
			Source: "Innodb_os_log_written (bytes written to the redo log files, whole server)",
			Note:   "no redo LSN status variable on this server (MySQL 8.0.30+ has Innodb_redo_log_current_lsn): the bytes written to the redo files, which trail the log's generation, stand in"})
	}
	rows := [][2]string{{result.RowsInserted.Name, "Handler_write"}, {result.RowsUpdated.Name, "Handler_update"}, {result.RowsDeleted.Name, "Handler_delete"}}
	what, note := "row handler calls, all engines, whole server, all sessions", "Handler counts are server-wide and count every storage engine, not only InnoDB"
	if s.Has(my.CapInnodbRows) {
		rows = [][2]string{{result.RowsInserted.Name, "Innodb_rows_inserted"}, {result.RowsUpdated.Name, "Innodb_rows_updated"}, {result.RowsDeleted.Name, "Innodb_rows_deleted"}}
		what, note = "InnoDB rows, whole server, all sessions", ""
	}
	for _, r := range rows {
		out = append(out, result.SampleSeries{Name: r[0], Unit: result.Count, Exactness: result.Exact, Source: r[1] + " (" + what + ")", Note: note})
	}
	if s.Has(my.CapTrxMonitor) && s.Has(my.CapInnodbMetrics) {
		out = append(out, result.SampleSeries{Name: result.TransactionsCommitted.Name, Unit: result.Count, Exactness: result.Derived, Source: commitRule})
	} else {
		notes = append(notes, "commits not sampled: the InnoDB transaction monitors (module_trx of INFORMATION_SCHEMA.INNODB_METRICS) are off or unreadable here; writeamp doctor says what turns them on")
	}
	return out, notes
}

// Read takes the status variables and, where sampled, the transaction ends.
func (Timeline) Read(ctx context.Context, conn *sql.Conn, s dialects.Server, _ []collectors.Object) (map[string]float64, error) {
	st, err := GlobalStatus{}.read(ctx, conn, s)
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	switch n := lsnVariable(st); {
	case n != "":
		out[result.LogBytes.Name] = st[n]
	default:
		if v, ok := st["Innodb_os_log_written"]; ok {
			out[result.LogBytes.Name] = v
		}
	}
	for metric, names := range map[string][2]string{
		result.RowsInserted.Name: {"Innodb_rows_inserted", "Handler_write"},
		result.RowsUpdated.Name:  {"Innodb_rows_updated", "Handler_update"},
		result.RowsDeleted.Name:  {"Innodb_rows_deleted", "Handler_delete"},
	} {
		name := names[1]
		if s.Has(my.CapInnodbRows) {
			name = names[0]
		}
		if v, ok := st[name]; ok {
			out[metric] = v
		}
	}
	if s.Has(my.CapTrxMonitor) && s.Has(my.CapInnodbMetrics) {
		n, err := trxEnds(ctx, conn, s)
		if err != nil {
			return nil, fmt.Errorf("INNODB_METRICS: %w", err)
		}
		if n != nil {
			out[result.TransactionsCommitted.Name] = *n
		}
	}
	return out, nil
}

// trxEnds is transactions_committed by InnodbMetrics' rule, nil when a
// monitor is off.
func trxEnds(ctx context.Context, qr dialects.Querier, s dialects.Server) (*float64, error) {
	rows, err := queries.Query(ctx, qr, my.Name, "innodb_metrics", s.VersionNum)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	trx := map[string]float64{}
	for rows.Next() {
		var name string
		var count float64
		var on bool
		if err := rows.Scan(&name, &count, &on); err != nil {
			return nil, err
		}
		if on {
			trx[name] = count
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, n := range my.TrxMonitors {
		if _, ok := trx[n]; !ok {
			return nil, nil
		}
	}
	n := trx["trx_rw_commits"] + trx["trx_ro_commits"] + trx["trx_nl_ro_commits"] - trx["trx_rollbacks"]
	return &n, nil
}
