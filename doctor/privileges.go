package doctor

import (
	"github.com/writeamp/writeamp/dialects"
	my "github.com/writeamp/writeamp/dialects/mysql"
	ora "github.com/writeamp/writeamp/dialects/oracle"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	ms "github.com/writeamp/writeamp/dialects/sqlserver"
)

// Need is what a group of numbers needs on one dialect, named as the vendor
// names it. The tables of docs/privileges.md are these rows (a test holds
// them to it); doctor says, for the server at hand, which are there.
type Need struct {
	Numbers   string `json:"numbers"`
	Privilege string `json:"privilege"` // the vendor's name for it
	Without   string `json:"without,omitempty"`
	// Caps must all be true for the numbers (unprobed ones are not
	// counted); Collectors must all have read in the trial snapshot.
	Caps       []string `json:"-"`
	Collectors []string `json:"-"`
	// ForServer, when set, names the privilege exactly for this server
	// (version, flavor, service objective) instead of Privilege.
	ForServer func(dialects.Server) string `json:"-"`
	// Applies, when set, says whether the numbers exist on this server.
	Applies func(dialects.Server) bool `json:"-"`
}

func azureSQLDatabase(s dialects.Server) bool { return s.Flavor == ms.FlavorAzureSQLDatabase }

func sqlserverScope(sc ms.Scope) func(dialects.Server) string {
	return func(s dialects.Server) string { p, _ := ms.Privilege(s, sc); return p }
}

// Needs lists, per dialect, the numbers and what each needs.
var Needs = map[string][]Need{
	"postgres": {
		{Numbers: "log bytes (WAL position), rows inserted/updated/deleted, HOT updates, WAL records and FPI (pg_stat_wal), buffer hits and reads per relation (pg_statio_*), buffer pages written (pg_stat_io, 16+)", Privilege: "none: the functions and views are granted to PUBLIC",
			Collectors: []string{"wal_lsn", "pg_stat_relations"}},
		{Numbers: "exact per-index leaf inserts and page splits, pages touched, log bytes per table and index (writeamp decodes the window's WAL segments)", Privilege: "EXECUTE on pg_read_binary_file(text, bigint, bigint), or a superuser",
			Without: "the same figures through pg_walinspect when it is installed and executable", Caps: []string{pg.CapWALFiles}},
		{Numbers: "the same through pg_walinspect, for a login that may not read the WAL segments", Privilege: "pg_walinspect installed, and EXECUTE on its functions (pg_read_server_files, or a superuser)",
			Without: "leaf inserts derived from the table counters (inserts + non-HOT updates), no per-object log bytes", Caps: []string{pg.CapWalinspect}},
		{Numbers: "pg_walinspect created for the run and dropped afterwards (only when the WAL segments cannot be read)", Privilege: "superuser (CREATE EXTENSION pg_walinspect)",
			Without: "pg_walinspect is used only if already installed", Caps: []string{pg.CapCreateWalinspect}},
		{Numbers: "a long window's WAL kept on the server until it is read (a replication slot)", Privilege: "REPLICATION (or superuser), wal_level replica or logical, a free max_replication_slots entry",
			Without: "a window that spans checkpoints can lose its start: its log bytes then come from the LSN difference and its per-index figures are derived, with a warning", Caps: []string{pg.CapHoldWAL}},
		{Numbers: "CHECKPOINT before each window", Privilege: "pg_checkpoint (15+) or superuser",
			Without: "full-page-image bytes depend on when the last checkpoint ran", Caps: []string{pg.CapCheckpoint}},
		{Numbers: "the refresh-token workload's own schema", Privilege: "CREATE on the database", Collectors: []string{"create schema"}},
	},
	"mysql": {
		{Numbers: "redo bytes (LSN, Innodb_os_log_written), rows (Handler_write/update/delete or Innodb_rows_inserted/updated/deleted), row lock waits, commit statements, MariaDB binlog bytes", Privilege: "none: SHOW GLOBAL STATUS",
			Collectors: []string{"global_status"}},
		{Numbers: "index definitions, for the derived per-index writes", Privilege: "any privilege on the tables (INFORMATION_SCHEMA.STATISTICS shows what the login can see)",
			Collectors: []string{"statistics"}},
		{Numbers: "page splits and merges, transactions committed", Privilege: "PROCESS (INFORMATION_SCHEMA.INNODB_METRICS), and the InnoDB monitors on",
			Without: "no page split counts; commit statements only, not transactions", Caps: []string{my.CapInnodbMetrics}, Collectors: []string{"innodb_metrics"}},
		{Numbers: "turning the InnoDB monitors on for the window", Privilege: "SUPER (MariaDB) / SYSTEM_VARIABLES_ADMIN (MySQL)",
			Without: "an administrator runs SET GLOBAL innodb_monitor_enable = 'module_index' and 'module_trx'", Caps: []string{my.CapMonitorAdmin},
			ForServer: my.MonitorPrivilege},
		{Numbers: "leaf and total pages per index (cross-check)", Privilege: "SELECT on mysql.innodb_index_stats",
			Without: "no index sizes", Caps: []string{my.CapIndexStats}},
		{Numbers: "pages touched per index, change buffer merges, InnoDB lock waits in the sampled wait shares", Privilege: "PROCESS (INFORMATION_SCHEMA.INNODB_BUFFER_PAGE, INNODB_METRICS, INNODB_TRX)",
			Without: "no pages touched; change buffer merges from status variables (MariaDB); wait shares from processlist states only", Caps: []string{my.CapInnodbMetrics}, Collectors: []string{"innodb_buffer_page"}},
		{Numbers: "InnoDB latch, file I/O, table-lock and metadata-lock waits", Privilege: "performance_schema = ON at server start, its wait instruments and the global_instrumentation consumer on, SELECT on performance_schema.*",
			Without: "no latch wait counts; the sampled wait shares and the row-lock waits stay", Collectors: []string{"events_waits_summary_global_by_event_name"}},
		{Numbers: "MySQL binlog bytes", Privilege: "SELECT on performance_schema.file_summary_by_event_name",
			Without: "no binlog bytes", Collectors: []string{"file_summary_by_event_name"},
			Applies: func(s dialects.Server) bool { return !my.IsMariaDB(s) }},
		{Numbers: "the refresh-token workload's own database", Privilege: "CREATE, DROP, ALTER, INDEX, INSERT, UPDATE, DELETE, SELECT ON *.*"},
	},
	"sqlserver": {
		{Numbers: "per-index leaf inserts/deletes/updates, allocations, merges, page latch and row lock waits", Privilege: "VIEW DATABASE STATE (2016-2019) / VIEW DATABASE PERFORMANCE STATE (2022+, Azure)",
			Caps: []string{ms.CapViewDatabaseState}, Collectors: []string{"sys_dm_db_index_operational_stats"}, ForServer: sqlserverScope(ms.DatabaseScope)},
		{Numbers: "log bytes of the database's log file", Privilege: "VIEW SERVER STATE (2016-2019) / VIEW SERVER PERFORMANCE STATE (2022+); on Azure SQL Database the database permission",
			Caps: []string{ms.CapViewServerState}, Collectors: []string{"sys_dm_io_virtual_file_stats"}, ForServer: sqlserverScope(ms.ServerScope)},
		{Numbers: "log flushes and page splits (sys.dm_os_performance_counters), waits (sys.dm_os_wait_stats)", Privilege: "VIEW SERVER STATE / VIEW SERVER PERFORMANCE STATE; Azure SQL Database Basic, S0, S1 and elastic pools: the server admin, the Microsoft Entra admin or ##MS_ServerStateReader##, other service objectives VIEW DATABASE STATE",
			Caps: []string{ms.CapInstanceDMVs}, Collectors: []string{"sys_dm_os_performance_counters"}, ForServer: sqlserverScope(ms.InstanceScope)},
		{Numbers: "the workload sessions' own waits (sampled sys.dm_exec_session_wait_stats)", Privilege: "VIEW SERVER STATE (2016-2019) / VIEW SERVER PERFORMANCE STATE (2022+); on Azure SQL Database VIEW DATABASE STATE",
			Without: "waits only for the whole instance (without the permission the view shows only writeamp's own session, so it is not read)", Caps: []string{ms.CapViewServerState}, ForServer: sqlserverScope(ms.ServerScope)},
		{Numbers: "waits of this database on Azure SQL Database (sys.dm_db_wait_stats)", Privilege: "VIEW DATABASE STATE",
			Caps: []string{ms.CapViewDatabaseStateFull}, Applies: azureSQLDatabase},
		{Numbers: "log bytes per index (sys.fn_dblog)", Privilege: "sysadmin",
			Without: "no log bytes per index; the database's log bytes (sys.dm_io_virtual_file_stats) and the per-index leaf writes (sys.dm_db_index_operational_stats) need no sysadmin and stay",
			Caps:    []string{ms.CapFnDblog}},
		{Numbers: "CHECKPOINT before each window", Privilege: "sysadmin, db_owner or db_backupoperator",
			Without: "pages dirtied before the window may be written inside it", Caps: []string{ms.CapCheckpoint}},
		{Numbers: "the refresh-token workload's own schema", Privilege: "CREATE SCHEMA and CREATE TABLE, ALTER on that schema (or db_ddladmin)"},
	},
	"oracle": {
		{Numbers: "block changes, physical writes, buffer busy, ITL and row lock waits per table and index segment", Privilege: "SELECT_CATALOG_ROLE (or SELECT on SYS.V_$SEGMENT_STATISTICS and SYS.V_$SEGSTAT_NAME), STATISTICS_LEVEL TYPICAL or ALL",
			Caps: []string{ora.CapStatisticsLevel}, Collectors: []string{"v_segment_statistics"}},
		{Numbers: "redo size and entries, undo bytes, leaf node splits", Privilege: "SELECT_CATALOG_ROLE (or SELECT on SYS.V_$SYSSTAT; in a PDB SYS.V_$CON_SYSSTAT)",
			Collectors: []string{"v_sysstat"}},
		{Numbers: "waits (log file sync, index contention, buffer busy)", Privilege: "SELECT_CATALOG_ROLE (or SELECT on SYS.V_$SYSTEM_EVENT; in a PDB SYS.V_$CON_SYSTEM_EVENT)",
			Collectors: []string{"v_system_event"}},
		{Numbers: "the workload sessions' own waits (sampled V$SESSION_EVENT)", Privilege: "SELECT_CATALOG_ROLE (or SELECT on SYS.V_$SESSION_EVENT and SYS.V_$SESSION)",
			Without: "waits only for the whole instance or PDB"},
		{Numbers: "restart detection, COMPATIBLE and STATISTICS_LEVEL", Privilege: "SELECT_CATALOG_ROLE (or SELECT on SYS.V_$INSTANCE and SYS.V_$PARAMETER)",
			Without: "a restart shows only as counters going down; names over 30 bytes fail at CREATE", Caps: []string{ora.CapInstance}},
		{Numbers: "the refresh-token workload's own schema", Privilege: "CREATE USER, DROP USER, CREATE ANY TABLE, CREATE ANY INDEX, SELECT/INSERT/UPDATE/DELETE ANY TABLE; the workload's user gets QUOTA UNLIMITED on the default permanent tablespace from its CREATE USER"},
		{Numbers: "the workload schema's ownership lock, held while a run uses it", Privilege: "EXECUTE on SYS.DBMS_LOCK"},
	},
}

// NeedStatus is a Need on the server at hand.
type NeedStatus struct {
	Need
	// Status is "available", "missing" or "not checked" (nothing probed or
	// read tells, e.g. a schema privilege doctor does not try).
	Status string `json:"status"`
	Why    string `json:"why,omitempty"`
	// Cautions say what the privilege lets the login do beyond writeamp's use.
	Cautions []string `json:"cautions,omitempty"`
}

func needStatus(s dialects.Server, failed map[string]string) []NeedStatus {
	var out []NeedStatus
	for _, n := range Needs[s.Dialect] {
		if n.Applies != nil && !n.Applies(s) {
			continue
		}
		st := NeedStatus{Need: n, Status: "not checked"}
		if n.ForServer != nil {
			st.Privilege = n.ForServer(s)
		}
		checked := false
		for _, c := range n.Caps {
			ok, probed := s.Caps[c]
			if !probed {
				continue
			}
			checked = true
			if !ok && st.Status != "missing" {
				st.Status, st.Why = "missing", s.Why(c)
			}
		}
		for _, c := range n.Collectors {
			checked = true
			if why, bad := failed[c]; bad && st.Status != "missing" {
				st.Status, st.Why = "missing", why
			}
		}
		if checked && st.Status != "missing" {
			st.Status = "available"
		}
		if st.Status == "missing" {
			st.Cautions = Cautions(st.Privilege + " " + st.Why)
		}
		out = append(out, st)
	}
	return out
}
