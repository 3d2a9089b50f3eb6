package doctor

import (
	"context"
	"database/sql"
	_ "embed"
	"fmt"
	"sort"
	"strings"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	my "github.com/writeamp/writeamp/dialects/mysql"
	pg "github.com/writeamp/writeamp/dialects/postgres"
)

// Item is one collector, capability or privilege.
type Item struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"` // collector, interval collector, capability, privilege
	Available bool   `json:"available"`
	Needed    bool   `json:"needed"` // some command cannot work without it
	// For is the first of Purposes that cannot work without it ("" optional).
	For      string   `json:"for,omitempty"`
	Gives    string   `json:"gives,omitempty"`
	Reason   string   `json:"reason,omitempty"`
	Fix      string   `json:"fix,omitempty"`
	Without  string   `json:"without,omitempty"`  // what happens when it is missing
	Cautions []string `json:"cautions,omitempty"` // what Fix lets the login do beyond writeamp's use
}

// Report is a diagnosis.
type Report struct {
	Server dialects.Server `json:"server"`
	Where  string          `json:"where"`
	Items  []Item          `json:"items"`
	// Needs says, per group of numbers, the privilege it needs in the
	// vendor's words and whether this login has it.
	Needs []NeedStatus `json:"needs,omitempty"`
	// For is the command asked about (doctor --for); "" judges measure and
	// says what works for each.
	For string `json:"for,omitempty"`
	// Strict: anything missing fails (doctor --strict).
	Strict bool `json:"strict,omitempty"`
}

// OK reports whether the command asked about (measure unless asked) can work.
func (r *Report) OK() bool { return r.Works(r.asked()) }

// Complete reports whether everything, needed or not, is available, leaving
// out what this server version does not have at all.
func (r *Report) Complete() bool {
	for _, it := range r.Items {
		if !it.Available && it.Kind != "version" {
			return false
		}
	}
	return true
}

// needed names, per dialect, the collectors without which measure (and so
// every command) has no headline numbers: the log volume and the row/HOT counts
// (PostgreSQL); per-index leaf inserts fall back to a derivation from the
// table counters when pg_walinspect is missing, labelled derived.
var needed = map[string][]string{
	"postgres":  {"wal_lsn", "pg_class", "pg_stat_relations"},
	"mysql":     {"global_status", "statistics"},
	"sqlserver": {"sys_dm_db_index_operational_stats", "sys_dm_io_virtual_file_stats", "sys_indexes"},
	"oracle":    {"v_sysstat", "v_segment_statistics", "all_objects"},
}

// gives says what each collector contributes; without says what is lost.
var gives = map[string][2]string{
	"wal_lsn":                             {"WAL bytes of the window (log_bytes)", "no log volume at all"},
	"pg_class":                            {"the tables and indexes in scope, their sizes and relfilenodes", "no objects to attribute numbers to"},
	"pg_stat_relations":                   {"rows inserted/updated/deleted and HOT updates (hot_ratio) per table, index scans, shared-buffer hits and reads per table and index (pg_stat_user_tables/_indexes and pg_statio_user_tables/_indexes, read by oid in one pass)", "no row counts, no HOT ratio, no index reads, no buffer accesses per relation"},
	"pg_stat_wal":                         {"WAL records, full-page images (PostgreSQL 14+)", "no WAL record and FPI counts"},
	"pg_stat_io":                          {"pages written and extended in shared buffers, cluster-wide and by every backend type (PostgreSQL 16+; approx: all sessions, written when evicted or checkpointed)", "no count of buffer pages written; the WAL's pages touched still say which pages changed"},
	"pg_stat_database":                    {"transactions committed and rolled back", "no transaction counts"},
	"pg_stat_checkpointer":                {"checkpoints in the window and the buffers they wrote (pg_stat_bgwriter before 17, pg_stat_checkpointer from 17)", "no checkpoint count, so a full-page-image burst after a checkpoint goes unexplained"},
	"pg_wal":                              {"exact per-index leaf inserts and page splits, WAL bytes, pages touched and full-page images per table and index, decoded from the WAL segments (local files or pg_read_binary_file)", "falls back to pg_walinspect (15+), else leaf inserts are derived from the table counters and there are no per-object WAL bytes or pages touched"},
	"wal_replay":                          {"WAL bytes a standby replayed in the window (pg_last_wal_replay_lsn), and the window's end waits for replay to catch up", "no replayed log volume on a standby"},
	"pg_stat_replication":                 {"each standby's positions (sent, written, flushed, replayed) at both ends of the window", "no shipped bytes per standby"},
	"replication_shipped":                 {"log bytes sent, written, flushed and replayed per standby in the window, and the cluster's total", "no shipped bytes per standby"},
	"pg_stat_archiver":                    {"WAL segments archived and failed archive attempts (archive_mode on)", "no archiving figures"},
	"pg_stat_replication_slots":           {"logical decoding per slot: bytes decoded, spilled to disk and streamed (PostgreSQL 14+)", "no logical decoding figures"},
	"pg_stat_statements":                  {"per-statement calls, rows, WAL bytes/records/FPI, blocks dirtied and written and time (pg_stat_statements, 13+; read, never reset): which statements wrote the window's WAL", "no per-statement costs: the window's WAL is not attributed to statements"},
	"events_statements_summary_by_digest": {"per-statement (digest) calls, rows affected/examined/sent, time, temporary tables and statements that used no index (performance_schema)", "no per-statement costs"},
	"sys_dm_exec_query_stats":             {"per-statement executions, rows, logical writes and elapsed time of the plan cache, this database's statements", "no per-statement costs"},
	"v_sqlstats":                          {"per-statement (SQL_ID and plan) executions, rows processed, physical write bytes and elapsed time (V$SQLSTATS)", "no per-statement costs"},
	"pg_walinspect":                       {"exact per-index leaf inserts and page splits, WAL bytes per table and index", "leaf inserts are derived from the table counters (inserts + non-HOT updates; partial indexes n/a), no per-object WAL bytes"},
	"global_status":                       {"redo LSN and bytes, row and handler counters", "no redo volume"},
	"replica_status":                      {"on a replica, each replication connection's positions in its primary's binary log (received, applied) and the transactions applied, at both ends of the window; its windows start and end caught up", "no received or applied binlog bytes on a replica, and its row counts include the applier's mysql.gtid_slave_pos rows"},
	"replica_applied":                     {"on a replica, the primary's binlog bytes received and applied in the window (exact), the transactions applied, and the rows without the applier's own mysql.gtid_slave_pos bookkeeping (derived)", "no received or applied binlog bytes on a replica"},
	"replica_hosts":                       {"on a primary, the replicas registered with it (SHOW SLAVE HOSTS), each shipped the window's binlog (derived)", "no shipped bytes per replica"},
	"semisync":                            {"on a primary, semi-synchronous commits acknowledged or timed out, and the commits' waits for a replica", "no semi-sync wait figures"},
	"statistics":                          {"index definitions, to derive per-index writes by InnoDB's rules", "no per-index writes"},
	"innodb_metrics":                      {"index page splits and merges, transactions committed (INNODB_METRICS module_index, module_trx)", "no page split counts, and no transaction count (commit_statements counts COMMIT statements only)"},
	"innodb_index_stats":                  {"index sizes in pages", "no index sizes"},
	"file_summary_by_event_name":          {"binary log bytes (MySQL)", "no binlog volume"},
	"events_waits_summary_global_by_event_name": {"InnoDB latch acquisitions and their time (index_tree_rw_lock, buffer pool, lock system), InnoDB file I/O, table and metadata lock waits (performance_schema)",
		"no latch wait counts; the sampled wait shares and the row-lock waits (global_status) stay"},
	"innodb_change_buffer":              {"change buffer merges and growth, and whether this server buffers secondary-index changes at all (innodb_change_buffering)", "no change buffer figures"},
	"innodb_buffer_page":                {"pages touched per index and table in the window (approx: the buffer pool's pages whose LSN lies in the window)", "no pages touched"},
	"processlist":                       {"the workload sessions' sampled wait shares: InnoDB row and table lock waits, other lock waits, processlist states", "no wait shares"},
	"table_io_waits_summary_by_table":   {"rows inserted, updated and deleted per table (performance_schema table I/O)", "no rows per table: a wrapped command's figures and check's /op are per command (or per row the whole server changed)"},
	"table_statistics":                  {"rows written per table (MariaDB User Statistics, userstat = ON)", "no rows per table where performance_schema does not count them either"},
	"sys_dm_db_index_operational_stats": {"per-index leaf inserts/deletes/updates, page latch waits", "no per-index writes"},
	"sys_dm_io_virtual_file_stats":      {"log file bytes written", "no log volume"},
	"sys_dm_os_performance_counters":    {"log bytes flushed, page splits", "no log flush and page split counters"},
	"sys_dm_os_wait_stats":              {"waits: WRITELOG, PAGELATCH_*, PAGEIOLATCH_*, log rate governor", "no wait statistics"},
	"sys_indexes":                       {"the indexes in scope", "no objects to attribute numbers to"},
	"fn_dblog":                          {"log bytes per index from the active log", "no per-index log bytes"},
	"fn_dblog_mark":                     {"the log position fn_dblog reads from", "no per-index log bytes"},
	"v_sysstat":                         {"redo size, redo entries, db block changes, leaf node splits", "no redo volume"},
	"v_segment_statistics":              {"db block changes per table and index segment (proxy for index writes)", "no per-segment changes"},
	"v_system_event":                    {"waits: log file sync, index contention, buffer busy", "no wait statistics"},
	"v_session_event":                   {"the workload sessions' own waits (log file sync, index contention, buffer busy, row lock contention)", "waits only for the whole instance or PDB (v_system_event)"},
	"sys_dm_exec_session_wait_stats":    {"the workload sessions' own waits (PAGELATCH_*, PAGEIOLATCH_*, WRITELOG, LCK_M_*)", "waits only for the whole instance (sys_dm_os_wait_stats)"},
	"all_objects":                       {"the tables and indexes in scope", "no objects to attribute numbers to"},

	// SQL Server's copies, and Azure SQL Database's log rate against its tier.
	"sys_dm_hadr_database_replica_states": {"on an availability group's primary, each secondary of the database and the Availability/Database Replica counters at both ends of the window", "no bytes sent per secondary"},
	"hadr_shipped":                        {"on a primary, the bytes sent to each secondary (its whole stream), whether it commits synchronously, the commits that waited for one and how long; on a secondary, the log received and redone", "no figures of the database's copies"},
	"sys_dm_db_resource_stats_mark":       {"the server's clock, to place the window among sys.dm_db_resource_stats rows (Azure SQL Database)", "no log rate against the tier's limit"},
	"sys_dm_db_resource_stats":            {"Azure SQL Database: the log write rate as a share of the tier's limit, max and mean of the window's 15-second intervals", "no log rate against the tier's limit"},

	// Oracle Data Guard: what the primary archives and ships, what a physical standby applies.
	"v_archived_log":        {"on a primary, the control file's archived log records at both ends of the window", "no shipped or archived redo per destination"},
	"v_archive_dest_status": {"on a primary, each archive destination's name, type and status at both ends of the window", "no shipped or archived redo per destination"},
	"archived_log_shipped":  {"on a primary, the redo of the whole logs archived to each standby destination in the window (derived) and the log files archived locally", "no shipped bytes per standby, no archiving figures"},
	"v_recovery_progress":   {"on a physical standby, the primary's redo Redo Apply applied in the window (approx, whole megabytes)", "no applied redo volume on a standby"},
}

// capItems are the capabilities the probe found missing that no collector
// listed already stands for (CHECKPOINT, version-gated counters ...), each
// with its typed reason: a version gate is "n/a", not a fix to make.
func capItems(s dialects.Server, listed []Item) []Item {
	seen := map[string]bool{}
	for _, it := range listed {
		seen[it.Name] = true
	}
	var caps []string
	for c, ok := range s.Caps {
		if !ok && !seen[c] && c != "superuser" && !strings.HasPrefix(c, "create_") {
			caps = append(caps, c)
		}
	}
	sort.Strings(caps)
	var items []Item
	for _, c := range caps {
		why := s.Reason(c)
		kind := "capability"
		if why.Kind == dialects.Version {
			kind = "version" // no statement fixes it: not counted by --strict
		}
		items = append(items, Item{Name: c, Kind: kind, Gives: capGives[c], Reason: why.Text, Fix: why.FixLine(), Without: capWithout[c]})
	}
	return items
}

func fromErr(err error) (string, string) {
	r := dialects.ReasonOf(err)
	return r.Text, r.FixLine()
}

//go:embed postgres.sql
var postgresSQL string

// Diagnose probes what each collector of the server's dialect can give (a
// trial snapshot in a read-only transaction) and whether run can do what it
// does first: create a schema, a table and write a row (PostgreSQL: in a
// transaction it rolls back; MySQL/MariaDB: a database it drops again).
func Diagnose(ctx context.Context, db *sql.DB, s dialects.Server) (*Report, error) {
	set, err := collectors.For(s.Dialect)
	if err != nil {
		return nil, err
	}
	r := &Report{Server: s}
	need := map[string]bool{}
	for _, n := range needed[s.Dialect] {
		need[n] = true
	}
	if s.Has(pg.CapStandby) {
		// A standby's log volume is its replay position's, as run and measure read it.
		need["wal_lsn"], need["wal_replay"] = false, true
	}
	// A trial snapshot catches what Supports cannot know (a view revoked,
	// a GRANT missing on one object). The scope names no real schema, so it
	// reads the views without listing the whole catalog.
	failed := map[string]collectors.Missing{}
	if snap, err := set.Take(ctx, db, s, collectors.Scope{Schemas: []string{"writeamp_doctor_no_such_schema"}}); err == nil {
		for _, m := range snap.Missing {
			failed[m.Collector] = m
		}
	} else {
		return nil, fmt.Errorf("doctor: trial snapshot: %w", err)
	}
	add := func(name, kind string, supports error) {
		it := Item{Name: name, Kind: kind, Needed: need[name], Gives: gives[name][0], Without: gives[name][1], Available: true}
		if it.Needed {
			it.For = "measure"
		}
		switch {
		case supports != nil:
			it.Available = false
			it.Reason, it.Fix = fromErr(supports)
		case failed[name].Collector != "":
			it.Available = false
			it.Reason, it.Fix = failed[name].Reason, failed[name].Fix
		}
		r.Items = append(r.Items, it)
	}
	for _, c := range set.Sources {
		add(c.Name(), "collector", c.Supports(s))
	}
	unread := map[string]string{}
	for _, c := range set.Interval {
		add(c.Name(), "interval collector", c.Supports(s))
	}

	r.Items = append(r.Items, capItems(s, r.Items)...)
	switch s.Dialect {
	case "postgres":
		if s.Has(pg.CapStandby) {
			r.Items = append(r.Items, standbyRows)
		}
		r.Items = append(r.Items, pgTrial(ctx, db, s))
	case "mysql":
		if s.Has(my.CapReplica) {
			// run refuses a replica, so doctor writes nothing there either.
			r.Items = append(r.Items, replicaTrial(s))
			break
		}
		r.Items = append(r.Items, mysqlTrial(ctx, db, s))
	}
	r.Items = append(r.Items, checkItems(ctx, db, s)...)
	for i, it := range r.Items {
		if !it.Available {
			unread[it.Name] = it.Reason
			r.Items[i].Cautions = Cautions(it.Fix)
		}
	}
	r.Needs = needStatus(s, unread)
	return r, nil
}

var capGives = map[string]string{
	"checkpoint":            "CHECKPOINT before each measured window (full-page images start alike)",
	"n_tup_newpage_upd":     "pg_stat_user_tables counter of updates that moved to another page",
	"pg_get_wal_block_info": "pg_walinspect's per-block function (faster than parsing block_ref)",
	"pg_stat_wal":           "WAL record and full-page-image counters",
}

var capWithout = map[string]string{
	"checkpoint":        "no CHECKPOINT before a window: full-page-image bytes depend on when the last checkpoint ran",
	"n_tup_newpage_upd": "updates that moved to another page are counted from the WAL (pg_walinspect) instead",
	"pg_stat_wal":       "no WAL record and FPI counts (WAL bytes still come from the LSN)",
}
