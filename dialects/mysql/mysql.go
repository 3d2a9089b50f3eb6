// Package mysql is the MySQL/MariaDB dialect (MySQL 8.0/8.4, MariaDB
// 10.11/11.x, InnoDB): connection, flavor and version detection, capability
// flags probed from the server, the InnoDB monitors turned on for a measured
// window, and the purge wait before the "after" snapshot.
package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	driver "github.com/go-sql-driver/mysql"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
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

// Config parses a DSN: a URL mysql://user:pass@host:3306/db?params (also
// mariadb://; ?socket=/path for a Unix socket) or the driver's own form
// user:pass@tcp(host:3306)/db?params.
func Config(dsn string) (*driver.Config, error) {
	var cfg *driver.Config
	if scheme, rest, ok := urlForm(dsn); ok {
		c, err := fromURL(scheme, rest, dsn)
		if err != nil {
			return nil, err
		}
		cfg = c
	} else {
		c, err := driver.ParseDSN(dsn)
		if err != nil {
			return nil, fmt.Errorf("--dsn: %s (expected mysql://user[:password]@host:3306/database or user[:password]@tcp(host:3306)/database)", dialects.ParseErrorText(err))
		}
		cfg = c
	}
	if cfg.Timeout == 0 || cfg.Timeout > ConnectTimeout {
		cfg.Timeout = ConnectTimeout
	}
	// The driver logs connection trouble on its own; writeamp reports the
	// returned error instead, once.
	cfg.Logger, cfg.ConnectionAttributes = nopLogger{}, withProgramName(cfg.ConnectionAttributes)
	return cfg, nil
}

type nopLogger struct{}

func (nopLogger) Print(...any) {}

// urlForm reports a mysql:// or mariadb:// URL; anything else is the
// driver's form, whose password may itself hold "://".
func urlForm(dsn string) (scheme, rest string, ok bool) {
	scheme, rest, ok = strings.Cut(dsn, "://")
	scheme = strings.ToLower(scheme)
	return scheme, rest, ok && (scheme == "mysql" || scheme == "mariadb")
}

func fromURL(scheme, rest, dsn string) (*driver.Config, error) {
	u, err := url.Parse("mysql://" + rest)
	if err != nil {
		return nil, fmt.Errorf("--dsn: cannot parse the URL: %s (percent-encode @ : / %% ? # & in a password, e.g. %%40 for @)", dialects.ParseErrorText(err))
	}
	q := u.Query()
	cfg := driver.NewConfig()
	// Parameters go through the driver's own parser, so every option it knows
	// (tls, charset, readTimeout, interpolateParams, ...) means the same in
	// both DSN forms; unknown ones become session variables, as it does.
	socket := q.Get("socket")
	q.Del("socket")
	if enc := q.Encode(); enc != "" {
		pc, err := driver.ParseDSN("/?" + enc)
		if err != nil {
			return nil, fmt.Errorf("--dsn: %s", dialects.ParseErrorText(err))
		}
		cfg = pc
	}
	cfg.User = u.User.Username()
	cfg.Passwd, _ = u.User.Password()
	cfg.DBName = strings.TrimPrefix(u.Path, "/")
	if strings.Contains(cfg.DBName, "/") {
		// Not quoted: with an unencoded '/' in the password, the "database
		// name" is the password's tail.
		return nil, fmt.Errorf("--dsn: the database name contains '/' (percent-encode / and @ in a password: %%2F, %%40)")
	}
	switch {
	case socket != "":
		cfg.Net, cfg.Addr = "unix", socket
	default:
		host := u.Hostname()
		if host == "" {
			host = "127.0.0.1"
		}
		port := u.Port()
		if port == "" {
			port = "3306"
		}
		if _, err := strconv.Atoi(port); err != nil {
			return nil, fmt.Errorf("--dsn: the port is not a number (percent-encode : / @ in a password: %%3A, %%2F, %%40)")
		}
		cfg.Net, cfg.Addr = "tcp", net.JoinHostPort(host, port)
	}
	return cfg, nil
}

// Open connects and checks the server answers, with a bounded timeout.
func (d Dialect) Open(ctx context.Context, dsn string) (*sql.DB, error) {
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

// Redact hides the password of a URL or driver-form DSN, found where the
// driver finds it: in the driver form user:password@net(addr)/db?params the
// database follows the last '/', the user info ends at the last '@' before
// it, and the password is everything after the user info's first ':'.
func (Dialect) Redact(dsn string) string { return Redact(dsn) }

// Redact hides the password of a DSN.
func Redact(dsn string) string {
	if _, _, ok := urlForm(dsn); ok {
		return dialects.RedactURL(dsn)
	}
	head, tail := dsn, ""
	if slash := strings.LastIndexByte(dsn, '/'); slash >= 0 {
		head, tail = dsn[:slash], dsn[slash:]
	}
	at := strings.LastIndexByte(head, '@')
	if at < 0 {
		return dsn
	}
	if user, _, hasPw := strings.Cut(head[:at], ":"); hasPw {
		return user + ":" + dialects.Mask + head[at:] + tail
	}
	return dsn
}

var versionRE = regexp.MustCompile(`(\d+)\.(\d+)\.(\d+)`)

// ParseVersion turns VERSION() and @@version_comment into the flavor, the
// short version and the VersionNum described at MariaDBBase. MariaDB says so
// in VERSION() ("10.11.19-MariaDB-0+deb12u1"; older clients see a
// "5.5.5-" prefix) or in the comment ("mariadb.org binary distribution").
func ParseVersion(version, comment string) (flavor, short string, num int, err error) {
	v := strings.TrimPrefix(version, "5.5.5-")
	m := versionRE.FindStringSubmatch(v)
	if m == nil {
		return "", "", 0, fmt.Errorf("mysql: cannot read the server version from %q", version)
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	patch, _ := strconv.Atoi(m[3])
	num = major*10000 + minor*100 + patch
	short = fmt.Sprintf("%d.%d.%d", major, minor, patch)
	flavor = FlavorMySQL
	if strings.Contains(strings.ToLower(version), "mariadb") || strings.Contains(strings.ToLower(comment), "mariadb") {
		flavor = FlavorMariaDB
		num += MariaDBBase
	}
	return flavor, short, num, nil
}

// Probe learns the flavor, version and what this login may read. Names that
// differ between flavors and versions are probed (which status variables
// exist, whether INNODB_METRICS answers), not guessed from the version.
func (Dialect) Probe(ctx context.Context, q dialects.Querier) (dialects.Server, error) {
	s := dialects.Server{Dialect: Name}
	var version, comment, user, host string
	var db sql.NullString
	var port, serverID int64
	var logBin, readOnly, perfSchema int64
	err := q.QueryRowContext(ctx, queries.MustGet(Name, "probe", 0)).Scan(
		&version, &comment, &db, &user, &host, &port, &serverID, &logBin, &readOnly, &perfSchema)
	if err != nil {
		return s, fmt.Errorf("mysql: probe: %w", err)
	}
	s.Flavor, s.Version, s.VersionNum, err = ParseVersion(version, comment)
	if err != nil {
		return s, err
	}
	s.Database, s.User = db.String, user
	// Identity tells servers apart. StartedAt stays unset: it could only be
	// computed as now - Uptime, which jitters by a second between two probes
	// and would make SameServer refuse a valid diff; a restart still shows,
	// as counters that went down.
	s.Identity = fmt.Sprintf("%s:%d/server_id=%d", host, port, serverID)
	s.SetProp(PropHostUser, Grantee(user))
	s.SetProp("version_full", version)
	v := s.VersionNum

	present, err := statusNames(ctx, q, v)
	if err != nil {
		return s, fmt.Errorf("mysql: probe status variables: %w", err)
	}
	s.Set(CapRedoLSN, present["Innodb_redo_log_current_lsn"], redoReason(v))
	s.Set(CapLSNCurrent, present["Innodb_lsn_current"], "Innodb_lsn_current is a MariaDB status variable")
	s.Set(CapInnodbRows, present["Innodb_rows_inserted"], "Innodb_rows_inserted/updated/deleted are not kept by this server (MariaDB 10.11 dropped them): row counts come from Handler_write/update/delete (all engines)")
	s.Set(CapHistoryStatus, present["Innodb_history_list_length"], "Innodb_history_list_length is a MariaDB status variable")
	s.Set(CapBinlog, logBin != 0, "binary logging is off (log_bin = OFF): no binlog bytes to measure")
	switch {
	case logBin == 0:
		s.Set(CapBinlogStatus, false, s.Why(CapBinlog))
		s.Set(CapPerfSchemaBinlog, false, s.Why(CapBinlog))
	case present["Binlog_bytes_written"]:
		s.Set(CapBinlogStatus, true, "")
		s.Set(CapPerfSchemaBinlog, false, "binlog bytes come from Binlog_bytes_written on this server")
	default:
		s.Set(CapBinlogStatus, false, "Binlog_bytes_written is a MariaDB status variable")
		s.Set(CapPerfSchemaBinlog, perfSchema != 0, "performance_schema is off (performance_schema = OFF in the server's configuration): no binlog file I/O figures")
	}
	if readOnly != 0 {
		s.SetProp("read_only", "true")
	}

	// INNODB_METRICS needs PROCESS; asking is the probe.
	if err := probeMonitors(ctx, q, &s); err != nil {
		return s, err
	}

	var n int64
	err = q.QueryRowContext(ctx, queries.MustGet(Name, "index_stats_probe", v)).Scan(&n)
	if pe := AsPrivilegeError(err, s, "SELECT on mysql.innodb_index_stats", "GRANT SELECT ON mysql.innodb_index_stats TO "+s.Prop(PropHostUser)); pe != nil {
		s.Set(CapIndexStats, false, fmt.Sprintf("mysql.innodb_index_stats is not readable (fix: %s)", pe.Grant))
	} else if err != nil {
		s.Set(CapIndexStats, false, "mysql.innodb_index_stats: "+err.Error())
	} else {
		s.Set(CapIndexStats, true, "")
	}
	return s, nil
}

func redoReason(v int) string {
	if isMariaDB(v) {
		return "Innodb_redo_log_current_lsn is a MySQL 8.0.30+ status variable (MariaDB has Innodb_lsn_current)"
	}
	if !supportsRedoLSNStatus(v) {
		return "Innodb_redo_log_current_lsn needs MySQL 8.0.30 or later: redo bytes come from Innodb_os_log_written (includes block rewrites)"
	}
	return "Innodb_redo_log_current_lsn is missing on this server"
}

func statusNames(ctx context.Context, q dialects.Querier, v int) (map[string]bool, error) {
	rows, err := q.QueryContext(ctx, queries.MustGet(Name, "status_names", v))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var name, value string
		if err := rows.Scan(&name, &value); err != nil {
			return nil, err
		}
		out[name] = true
	}
	return out, rows.Err()
}

// Grantee turns CURRENT_USER()'s user@host into 'user'@'host' for GRANT texts.
func Grantee(currentUser string) string {
	i := strings.LastIndex(currentUser, "@")
	if i < 0 {
		return "'" + currentUser + "'@'%'"
	}
	return "'" + currentUser[:i] + "'@'" + currentUser[i+1:] + "'"
}

// Access-denied error numbers: 1227 ER_SPECIFIC_ACCESS_DENIED_ERROR (needs a
// global privilege), 1142 ER_TABLEACCESS_DENIED_ERROR, 1143 column, 1044
// ER_DBACCESS_DENIED_ERROR.
var deniedNumbers = map[uint16]bool{1227: true, 1142: true, 1143: true, 1044: true}

// AsPrivilegeError returns a *dialects.PrivilegeError when err is an
// access-denied error, nil otherwise.
func AsPrivilegeError(err error, s dialects.Server, privilege, grant string) *dialects.PrivilegeError {
	if err == nil {
		return nil
	}
	var me *driver.MySQLError
	if errors.As(err, &me) && deniedNumbers[me.Number] {
		return &dialects.PrivilegeError{Privilege: privilege, Grant: grant, Err: err}
	}
	return nil
}

// QuoteIdent quotes an identifier with backticks.
func QuoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }
