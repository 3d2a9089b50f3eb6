package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	driver "github.com/go-sql-driver/mysql"

	"github.com/writeamp/writeamp/dialects"
)

// Name is the dialect's registry name.
const Name = "mysql"

// Flavors.
const (
	FlavorMySQL   = "mysql"
	FlavorMariaDB = "mariadb"
)

// MariaDBBase offsets MariaDB version numbers above every MySQL one, so that
// query blocks can be gated on flavor and version with one number:
//
//	MySQL   8.0.30   ->      80030  (major*10000 + minor*100 + patch, MySQL's own MYSQL_VERSION_ID)
//	MariaDB 10.11.19 ->  1_101_119  (MariaDB's MYSQL_VERSION_ID 101119 + MariaDBBase)
//
// A block for MySQL only says "-- max_version: 1000000", one for MariaDB only
// "-- min_version: 1000000".
const MariaDBBase = 1_000_000

// Capability names. Version differences live here as predicates and probes,
// nowhere else.
const (
	// CapRedoLSN: MySQL 8.0.30+ Innodb_redo_log_current_lsn; its LSN counts
	// the 512-byte block framing of the redo log.
	CapRedoLSN = "innodb_redo_log_current_lsn"
	// CapLSNCurrent: MariaDB's Innodb_lsn_current (10.8+ redo format has no
	// block framing: the LSN difference is the bytes written).
	CapLSNCurrent = "innodb_lsn_current"
	// CapInnodbRows: Innodb_rows_inserted/updated/deleted (MySQL; absent in MariaDB 10.11).
	CapInnodbRows = "innodb_rows"
	// CapBinlog: binary logging is on (log_bin).
	CapBinlog = "binlog"
	// CapBinlogStatus: MariaDB's Binlog_bytes_written status variable.
	CapBinlogStatus = "binlog_bytes_written"
	// CapPerfSchemaBinlog: MySQL binlog bytes from performance_schema file I/O.
	CapPerfSchemaBinlog = "performance_schema_binlog"
	// CapHistoryStatus: MariaDB's Innodb_history_list_length status variable
	// (readable without PROCESS).
	CapHistoryStatus = "innodb_history_list_length"
	// CapInnodbMetrics: INFORMATION_SCHEMA.INNODB_METRICS is readable (PROCESS).
	CapInnodbMetrics = "innodb_metrics"
	// CapIndexMonitor: the module_index counters (page splits, merges) are
	// counting, already or because Instrument enabled them for the window.
	CapIndexMonitor = "innodb_monitor_module_index"
	// CapTrxMonitor: the transaction counters (commits, rollbacks) are counting.
	CapTrxMonitor = "innodb_monitor_trx"
	// CapMonitorAdmin: SHOW GRANTS gives this login what SET GLOBAL
	// innodb_monitor_enable needs (unprobed when SHOW GRANTS fails).
	CapMonitorAdmin = "set_global_innodb_monitor"
	// CapIndexStats: mysql.innodb_index_stats is readable (leaf-page cross-check).
	CapIndexStats = "innodb_index_stats"

	PropHostUser = "grantee" // 'user'@'host' of CURRENT_USER(), for GRANT texts
)

// Version predicates over Server.VersionNum.
func isMariaDB(v int) bool { return v >= MariaDBBase }

// supportsRedoLSNStatus: MySQL 8.0.30 replaced the redo log files and added
// Innodb_redo_log_current_lsn.
func supportsRedoLSNStatus(v int) bool { return !isMariaDB(v) && v >= 80030 }

// supportsLSNCurrent: MariaDB has long had Innodb_lsn_current.
func supportsLSNCurrent(v int) bool { return isMariaDB(v) }

// blockFramedLSN: the LSN includes 12-byte headers and 4-byte trailers of
// 512-byte blocks (MySQL; MariaDB before 10.8).
func blockFramedLSN(v int) bool { return !isMariaDB(v) || v < MariaDBBase+100800 }

// supportsMetricsStatusColumn: MySQL names INNODB_METRICS' state STATUS
// ('enabled'/'disabled'); MariaDB has ENABLED (1/0).
func supportsMetricsStatusColumn(v int) bool { return !isMariaDB(v) }

// IsMariaDB reports whether the server is MariaDB.
func IsMariaDB(s dialects.Server) bool { return s.Flavor == FlavorMariaDB }

// BlockFramedLSN reports whether the server's LSN counts 512-byte block
// framing (payload ≈ ΔLSN × 496/512).
func BlockFramedLSN(s dialects.Server) bool { return blockFramedLSN(s.VersionNum) }

// Dialect implements dialects.Dialect, Settler and Instrumenter for MySQL and MariaDB.
type Dialect struct{}

func init() { dialects.Register(Dialect{}) }

func (Dialect) Name() string      { return Name }
func (Dialect) Schemes() []string { return []string{"mysql", "mariadb"} }

// ConnectTimeout bounds how long an unreachable host can hold a command.
var ConnectTimeout = 10 * time.Second

// Open connects and checks the server answers, with a bounded timeout.
func (d Dialect) Open(ctx context.Context, dsn string, _ ...dialects.OpenOption) (*sql.DB, error) {
	cfg, err := Config(dsn)
	if err != nil {
		return nil, err
	}
	// Client-side interpolation saves the prepare and close round trips of
	// every statement; safe with the default utf8mb4 collation.
	if !strings.Contains(dsn, "interpolateParams") {
		cfg.InterpolateParams = true
	}
	conn, err := driver.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("mysql: %s", dialects.ParseErrorText(err))
	}
	db := sql.OpenDB(conn)
	if err := dialects.PingWithin(ctx, db, ConnectTimeout); err != nil {
		// The driver names the user and host in connect errors, never the
		// password (TestConnectErrorsDoNotDependOnThePassword).
		return nil, fmt.Errorf("mysql: cannot connect to %s: %w", d.Redact(dsn), err)
	}
	return db, nil
}

// QuoteIdent quotes an identifier with backticks.
func QuoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }
