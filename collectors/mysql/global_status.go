package mysql

import (
	"context"
	"strconv"
	"strings"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/result"
)

// GlobalStatus reads the server-wide status variables (SHOW GLOBAL STATUS,
// no privilege needed): redo LSN and bytes written to the redo files, binlog
// bytes (MariaDB), row counts and row-lock waits. Every figure is server-wide:
// other sessions' work in the window is included.
type GlobalStatus struct{}

// MarkLSN is the snapshot mark holding the redo LSN.
const MarkLSN = "redo_lsn"

func (GlobalStatus) Name() string                   { return "global_status" }
func (GlobalStatus) Supports(dialects.Server) error { return nil }

func (g GlobalStatus) read(ctx context.Context, qr dialects.Querier, s dialects.Server) (map[string]float64, error) {
	return g.readBlock(ctx, qr, s, "global_status")
}

// lsnVariable is the status variable holding the current redo LSN, if any.
func lsnVariable(st map[string]float64) string {
	for _, n := range []string{"Innodb_redo_log_current_lsn", "Innodb_lsn_current"} {
		if _, ok := st[n]; ok {
			return n
		}
	}
	return ""
}

func (g GlobalStatus) Marks(ctx context.Context, qr dialects.Querier, s dialects.Server) (map[string]string, error) {
	st, err := g.read(ctx, qr, s)
	if err != nil {
		return nil, err
	}
	if n := lsnVariable(st); n != "" {
		return map[string]string{MarkLSN: strconv.FormatFloat(st[n], 'f', 0, 64)}, nil
	}
	return nil, nil
}

func (g GlobalStatus) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, _ collectors.Scope) ([]collectors.Counter, error) {
	st, err := g.read(ctx, qr, s)
	if err != nil {
		return nil, err
	}
	var out []collectors.Counter
	db := func(metric *result.Info, name string, e result.Exactness, source, note string) {
		if v, ok := st[name]; ok {
			c := collectors.NewCounter(collectors.DB, "", metric, v, e, source, "")
			c.Note = note
			out = append(out, c)
		}
	}
	written := "Innodb_os_log_written (bytes written to the redo log files, whole server; includes rewrites of partly filled blocks)"
	switch lsn := lsnVariable(st); {
	case lsn != "" && my.BlockFramedLSN(s):
		db(result.LogBytes, lsn, result.Exact, lsn+" difference (redo LSN, whole server, all sessions)",
			"the LSN counts the 512-byte block framing of the redo log: payload ≈ ΔLSN × 496/512 (log_payload_bytes)")
	case lsn != "":
		db(result.LogBytes, lsn, result.Exact, lsn+" difference (redo bytes generated, whole server, all sessions)", "")
	default:
		// MySQL before 8.0.30 exposes no LSN without PROCESS; the file
		// writes are the nearest figure.
		db(result.LogBytes, "Innodb_os_log_written", result.Approx, written,
			"no redo LSN status variable on this server (MySQL 8.0.30+ has Innodb_redo_log_current_lsn): bytes written to the redo files stand in")
	}
	db(result.LogBytesWritten, "Innodb_os_log_written", result.Exact, written, "")
	if s.Has(my.CapBinlogStatus) {
		db(result.BinlogBytes, "Binlog_bytes_written", result.Exact, "Binlog_bytes_written (binary log, whole server)", "")
	}
	if _, ok := st["Innodb_rows_inserted"]; ok {
		for _, m := range []struct {
			m   *result.Info
			src string
		}{{result.RowsInserted, "Innodb_rows_inserted"}, {result.RowsUpdated, "Innodb_rows_updated"}, {result.RowsDeleted, "Innodb_rows_deleted"}} {
			db(m.m, m.src, result.Exact, m.src+" (InnoDB rows, whole server, all sessions)", "")
		}
	} else {
		const note = "Handler counts are server-wide and count every storage engine, not only InnoDB"
		for _, m := range []struct {
			m   *result.Info
			src string
		}{{result.RowsInserted, "Handler_write"}, {result.RowsUpdated, "Handler_update"}, {result.RowsDeleted, "Handler_delete"}} {
			db(m.m, m.src, result.Exact, m.src+" (row handler calls, all engines, whole server, all sessions; no Innodb_rows_* on this server)", note)
		}
	}
	db(result.Family("waits.row_lock"), "Innodb_row_lock_waits", result.Exact, "Innodb_row_lock_waits (whole server)", "")
	db(result.Family("waits.row_lock_ms"), "Innodb_row_lock_time", result.Exact, "Innodb_row_lock_time (milliseconds, whole server)", "")
	var ddl float64
	found := false
	for name, v := range st {
		if isDDLCounter(name) {
			ddl, found = ddl+v, true
		}
	}
	if found {
		out = append(out, collectors.NewCounter(collectors.DB, "", result.DdlStatements, ddl, result.Exact,
			"Com_create_*, Com_alter_*, Com_drop_*, Com_rename_table, Com_truncate (DDL statements, whole server, all sessions)", ""))
	}
	db(result.CommitStatements, "Com_commit", result.Exact, "Com_commit (COMMIT statements, whole server, all sessions)",
		"COMMIT statements only: an autocommit statement commits without one; transactions_committed counts transactions")
	return append(out, galera(st)...), nil
}

// galera is a Galera node's write-set counters, none on a server that is
// not a node of a cluster (no wsrep provider: a cluster size of 0).
func galera(st map[string]float64) []collectors.Counter {
	if n, ok := st["wsrep_cluster_size"]; !ok || n < 1 {
		return nil
	}
	if _, ok := st["wsrep_replicated_bytes"]; !ok {
		return nil
	}
	var out []collectors.Counter
	for _, m := range []struct {
		metric *result.Info
		name   string
		scale  float64
		what   string
	}{
		{result.WritesetsReplicated, "wsrep_replicated", 1, "write-sets this node replicated to the cluster"},
		{result.WritesetBytesReplicated, "wsrep_replicated_bytes", 1, "bytes of the write-sets this node replicated"},
		{result.ActionsReceived, "wsrep_received", 1, "actions the cluster delivered to this node: the other nodes' write-sets and the 8-byte commit-cut messages"},
		{result.ActionBytesReceived, "wsrep_received_bytes", 1, "bytes of those actions"},
		{result.CertFailures, "wsrep_local_cert_failures", 1, "local transactions certification refused"},
		{result.BFAborts, "wsrep_local_bf_aborts", 1, "local transactions a replicated one aborted"},
		{result.FlowControlPausedMs, "wsrep_flow_control_paused_ns", 1e-6, "time replication was paused by flow control, nanoseconds shown as ms"},
		{result.FlowControlSent, "wsrep_flow_control_sent", 1, "flow control pauses this node asked for"},
		{result.FlowControlReceived, "wsrep_flow_control_recv", 1, "flow control pauses this node obeyed"},
	} {
		if v, ok := st[m.name]; ok {
			out = append(out, collectors.NewCounter(collectors.DB, "", m.metric, v*m.scale, result.Exact, m.name+" ("+m.what+"; this node, all sessions)", ""))
		}
	}
	c := collectors.NewCounter(collectors.DB, "", result.GaleraClusterSize, st["wsrep_cluster_size"], result.Exact, "wsrep_cluster_size at the window's end (nodes in the cluster)", "")
	c.Interval = true
	return append(out, c)
}

// isDDLCounter is a status variable counting DDL statements.
func isDDLCounter(name string) bool {
	for _, p := range []string{"Com_create_", "Com_alter_", "Com_drop_"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return name == "Com_rename_table" || name == "Com_truncate"
}
