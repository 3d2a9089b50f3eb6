package mysql

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/DATA-DOG/go-sqlmock"
	driver "github.com/go-sql-driver/mysql"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/sqlparse"
)

func TestConfigForms(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		dsn, user, pass, net, addr, db string
		timeout                        time.Duration
	}{
		{"mysql://root@127.0.0.1:3306/test", "root", "", "tcp", "127.0.0.1:3306", "test", ConnectTimeout},
		{"mysql://app:s3cr%40t@db.example:3307/kc?timeout=3s", "app", "s3cr@t", "tcp", "db.example:3307", "kc", 3 * time.Second},
		{"mariadb://app:pw@db.example/kc?timeout=1h", "app", "pw", "tcp", "db.example:3306", "kc", ConnectTimeout},
		{"mysql://app:pw@[::1]:3306/kc", "app", "pw", "tcp", "[::1]:3306", "kc", ConnectTimeout},
		{"mysql://root@localhost/kc?socket=/run/mysqld/mysqld.sock", "root", "", "unix", "/run/mysqld/mysqld.sock", "kc", ConnectTimeout},
		{"app:p@ss:w@tcp(127.0.0.1:3306)/kc?parseTime=true", "app", "p@ss:w", "tcp", "127.0.0.1:3306", "kc", ConnectTimeout},
		{"root@tcp(127.0.0.1:3306)/", "root", "", "tcp", "127.0.0.1:3306", "", ConnectTimeout},
	} {
		cfg, err := Config(c.dsn)
		if err != nil {
			t.Errorf("%s: %v", c.dsn, err)
			continue
		}
		if cfg.User != c.user || cfg.Passwd != c.pass || cfg.Net != c.net || cfg.Addr != c.addr || cfg.DBName != c.db || cfg.Timeout != c.timeout {
			t.Errorf("%s: got user=%q pass=%q net=%q addr=%q db=%q timeout=%s", c.dsn, cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName, cfg.Timeout)
		}
	}
	cfg, err := Config("mysql://u@h/db?charset=utf8mb4&readTimeout=5s")
	if err != nil || cfg.ReadTimeout != 5*time.Second {
		t.Errorf("driver parameters in the URL form: cfg=%+v err=%v", cfg, err)
	}
}

func TestConfigErrorsHidePassword(t *testing.T) {
	t.Parallel()
	for _, dsn := range []string{
		"mysql://app:Hunter2pw@host:notaport/db",
		"app:Hunter2pw@tcp(host:3306)/db?timeout=banana",
		"mysql://app:Hunter2pw@host:3306/db?timeout=banana",
		"postgres://app:Hunter2pw@host/db",
	} {
		_, err := Config(dsn)
		if err == nil {
			t.Errorf("%s: no error", dsn)
			continue
		}
		if strings.Contains(err.Error(), "Hunter2pw") {
			t.Errorf("error echoes the password: %v", err)
		}
	}
}

func TestRedact(t *testing.T) {
	t.Parallel()
	d := Dialect{}
	for in, want := range map[string]string{
		"mysql://app:Hunter2pw@db:3306/kc?tls=true": "mysql://app:xxxxx@db:3306/kc?tls=true",
		"mysql://root@127.0.0.1:3306/test":          "mysql://root@127.0.0.1:3306/test",
		"app:Hunter2pw@tcp(db:3306)/kc":             "app:xxxxx@tcp(db:3306)/kc",
		"app:Hun@ter2pw@tcp(db:3306)/kc?timeout=1s": "app:xxxxx@tcp(db:3306)/kc?timeout=1s",
		"root@tcp(db:3306)/kc":                      "root@tcp(db:3306)/kc",
		"app:Hunter2pw@unix(/run/mysqld.sock)/kc":   "app:xxxxx@unix(/run/mysqld.sock)/kc",
		"mariadb://app:Hunter2pw@db/kc":             "mariadb://app:xxxxx@db/kc",
		"mysql://app:Hunter2pw@db:bad port/kc":      "mysql://app:xxxxx@db:bad port/kc",
	} {
		if got := d.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

// A closed port fails fast, says where, and never shows the password.
func TestOpenClosedPortFailsFastWithoutPassword(t *testing.T) {
	t.Parallel()
	start := time.Now()
	for _, dsn := range []string{"mysql://app:Hunter2pw@127.0.0.1:1/db", "app:Hunter2pw@tcp(127.0.0.1:1)/db"} {
		_, err := Dialect{}.Open(context.Background(), dsn)
		if err == nil {
			t.Fatalf("%s: connected to port 1?", dsn)
		}
		if strings.Contains(err.Error(), "Hunter2pw") || !strings.Contains(err.Error(), "127.0.0.1:1") {
			t.Errorf("error: %v", err)
		}
		t.Logf("%s -> %v", Dialect{}.Redact(dsn), err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("took %s", time.Since(start))
	}
}

func TestForDSNPicksMySQL(t *testing.T) {
	t.Parallel()
	for _, dsn := range []string{"mysql://root@h/db", "mariadb://root@h/db", "root:pw@tcp(h:3306)/db"} {
		d, err := dialects.ForDSN(dsn)
		if err != nil || d.Name() != Name {
			t.Errorf("%s: %v %v", dsn, d, err)
		}
	}
}

func TestParseVersion(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		version, comment, flavor, short string
		num                             int
	}{
		{"10.11.19-MariaDB-0+deb12u1", "Debian 12", FlavorMariaDB, "10.11.19", 1101119},
		{"5.5.5-10.11.6-MariaDB", "mariadb.org binary distribution", FlavorMariaDB, "10.11.6", 1101106},
		{"11.4.3-MariaDB-ubu2404", "mariadb.org binary distribution", FlavorMariaDB, "11.4.3", 1110403},
		{"8.0.36", "MySQL Community Server - GPL", FlavorMySQL, "8.0.36", 80036},
		{"8.0.29-0ubuntu0.22.04.2", "(Ubuntu)", FlavorMySQL, "8.0.29", 80029},
		{"8.4.3", "MySQL Community Server - GPL", FlavorMySQL, "8.4.3", 80403},
		{"8.0.35", "Source distribution (MariaDB compatible? no)", FlavorMariaDB, "8.0.35", 1080035},
	} {
		f, s, n, err := ParseVersion(c.version, c.comment)
		if c.comment == "Source distribution (MariaDB compatible? no)" {
			// A comment naming MariaDB is taken at its word.
			if f != FlavorMariaDB {
				t.Errorf("comment naming MariaDB: flavor %s", f)
			}
			continue
		}
		if err != nil || f != c.flavor || s != c.short || n != c.num {
			t.Errorf("ParseVersion(%q) = %s %s %d %v", c.version, f, s, n, err)
		}
	}
	if _, _, _, err := ParseVersion("garbage", ""); err == nil {
		t.Error("no error for garbage")
	}
}

func TestPredicates(t *testing.T) {
	t.Parallel()
	if supportsRedoLSNStatus(80029) || !supportsRedoLSNStatus(80030) || !supportsRedoLSNStatus(80403) || supportsRedoLSNStatus(1101119) {
		t.Error("supportsRedoLSNStatus")
	}
	if !supportsLSNCurrent(1101119) || supportsLSNCurrent(80036) {
		t.Error("supportsLSNCurrent")
	}
	if !blockFramedLSN(80036) || blockFramedLSN(1101119) || !blockFramedLSN(1100611) {
		t.Error("blockFramedLSN")
	}
	if !supportsMetricsStatusColumn(80036) || supportsMetricsStatusColumn(1101119) {
		t.Error("supportsMetricsStatusColumn")
	}
}

func TestGrantee(t *testing.T) {
	t.Parallel()
	if g := Grantee("app@%"); g != "'app'@'%'" {
		t.Error(g)
	}
	if g := Grantee("we@ird@localhost"); g != "'we@ird'@'localhost'" {
		t.Error(g)
	}
}

// Every block exists for both flavors where the code asks for it.
func TestQueriesCoverBothFlavors(t *testing.T) {
	t.Parallel()
	if err := queries.LoadError(); err != nil {
		t.Fatal(err)
	}
	for _, v := range []int{80028, 80036, 80403, 1101119, 1110403} {
		for _, n := range []string{"probe", "status_names", "show_grants", "index_stats_probe", "history_len_metrics",
			"engine_innodb_status", "monitor_state", "monitor_vars", "monitor_enable", "monitor_disable",
			"monitor_enable_var_default", "monitor_disable_var_default"} {
			if _, err := queries.Get(Name, n, v); err != nil {
				t.Error(err)
			}
		}
	}
	if _, err := queries.Get(Name, "history_len_status", 1101119); err != nil {
		t.Error(err)
	}
}

func expectProbe(t testing.TB, mock sqlmock.Sqlmock, version, comment string, logBin int, status map[string]string, v int) {
	mock.ExpectQuery(mocksql.SQL(t, Name, "probe", 0)).WillReturnRows(
		sqlmock.NewRows([]string{"v", "c", "db", "u", "h", "p", "id", "lb", "ro", "ps"}).
			AddRow(version, comment, "kc", "app@%", "db1", 3306, 7, logBin, 0, 1))
	rows := sqlmock.NewRows([]string{"Variable_name", "Value"})
	for k, val := range status {
		rows.AddRow(k, val)
	}
	mock.ExpectQuery(mocksql.SQL(t, Name, "status_names", v)).WillReturnRows(rows)
}

// monitorRows is INNODB_METRICS as monitor_state reads it, the named counters on.
func monitorRows(on ...string) *sqlmock.Rows {
	r := sqlmock.NewRows([]string{"NAME", "on"})
	for _, n := range Monitors() {
		r.AddRow(n, slices.Contains(on, n))
	}
	return r
}

func grantRows(lines ...string) *sqlmock.Rows {
	r := sqlmock.NewRows([]string{"Grants"})
	for _, l := range lines {
		r.AddRow(l)
	}
	return r
}

func TestProbeMySQL8030(t *testing.T) {
	t.Parallel()
	db, mock := mocksql.New(t)
	expectProbe(t, mock, "8.0.36", "MySQL Community Server - GPL", 1, map[string]string{
		"Innodb_redo_log_current_lsn": "123456", "Innodb_rows_inserted": "0"}, 80036)
	// MySQL names the column STATUS: this is the MySQL-only text.
	mock.ExpectQuery(mocksql.SQL(t, Name, "monitor_state", 80036)).WillReturnRows(monitorRows())
	mock.ExpectQuery(mocksql.SQL(t, Name, "show_grants", 80036)).WillReturnRows(grantRows("GRANT PROCESS ON *.* TO `app`@`%`"))
	mock.ExpectQuery(mocksql.SQL(t, Name, "index_stats_probe", 80036)).WillReturnRows(sqlmock.NewRows([]string{"n"}).AddRow(0))
	s, err := Dialect{}.Probe(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	if s.Flavor != FlavorMySQL || s.VersionNum != 80036 || s.Version != "8.0.36" || s.String() != "MySQL 8.0.36" {
		t.Errorf("server %+v", s)
	}
	if !strings.Contains(mocksql.SQL(t, Name, "monitor_state", 80036), "STATUS = 'enabled'") {
		t.Error("MySQL probe must read the STATUS column")
	}
	for cap, want := range map[string]bool{CapRedoLSN: true, CapLSNCurrent: false, CapInnodbRows: true, CapBinlog: true,
		CapBinlogStatus: false, CapPerfSchemaBinlog: true, CapInnodbMetrics: true, CapIndexMonitor: false, CapIndexStats: true,
		CapMonitorAdmin: false, CapTrxMonitor: false} {
		if s.Has(cap) != want {
			t.Errorf("%s = %v, want %v (%s)", cap, s.Has(cap), want, s.Why(cap))
		}
	}
	if !strings.Contains(s.Why(CapIndexMonitor), "GRANT SYSTEM_VARIABLES_ADMIN ON *.* TO 'app'@'%'") {
		t.Errorf("monitor reason: %s", s.Why(CapIndexMonitor))
	}
}

func TestProbeMySQLBefore8030(t *testing.T) {
	t.Parallel()
	db, mock := mocksql.New(t)
	expectProbe(t, mock, "8.0.28", "MySQL Community Server - GPL", 0, map[string]string{"Innodb_rows_inserted": "0"}, 80028)
	mock.ExpectQuery(mocksql.SQL(t, Name, "monitor_state", 80028)).WillReturnError(denied("Access denied; you need (at least one of) the PROCESS privilege(s) for this operation"))
	mock.ExpectQuery(mocksql.SQL(t, Name, "index_stats_probe", 80028)).WillReturnRows(sqlmock.NewRows([]string{"n"}).AddRow(0))
	s, err := Dialect{}.Probe(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	if s.Has(CapRedoLSN) || !strings.Contains(s.Why(CapRedoLSN), "8.0.30") {
		t.Errorf("redo LSN: %v %s", s.Has(CapRedoLSN), s.Why(CapRedoLSN))
	}
	if s.Has(CapInnodbMetrics) || !strings.Contains(s.Why(CapInnodbMetrics), "GRANT PROCESS ON *.* TO 'app'@'%'") {
		t.Errorf("INNODB_METRICS: %s", s.Why(CapInnodbMetrics))
	}
	if s.Has(CapBinlog) || s.Has(CapPerfSchemaBinlog) {
		t.Error("binlog is off")
	}
}

func TestProbeMariaDB(t *testing.T) {
	t.Parallel()
	db, mock := mocksql.New(t)
	v := 1101119
	expectProbe(t, mock, "10.11.19-MariaDB-0+deb12u1", "Debian 12", 1, map[string]string{
		"Innodb_lsn_current": "44760", "Binlog_bytes_written": "0", "Innodb_history_list_length": "0"}, v)
	mock.ExpectQuery(mocksql.SQL(t, Name, "monitor_state", v)).WillReturnRows(monitorRows(IndexMonitors...))
	mock.ExpectQuery(mocksql.SQL(t, Name, "show_grants", v)).WillReturnRows(grantRows("GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` WITH GRANT OPTION"))
	mock.ExpectQuery(mocksql.SQL(t, Name, "index_stats_probe", v)).WillReturnRows(sqlmock.NewRows([]string{"n"}).AddRow(0))
	s, err := Dialect{}.Probe(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	if s.Flavor != FlavorMariaDB || s.VersionNum != v || s.String() != "MariaDB 10.11.19" {
		t.Errorf("server %+v", s)
	}
	for cap, want := range map[string]bool{CapRedoLSN: false, CapLSNCurrent: true, CapInnodbRows: false, CapBinlogStatus: true,
		CapPerfSchemaBinlog: false, CapHistoryStatus: true, CapIndexMonitor: true, CapTrxMonitor: false, CapMonitorAdmin: true} {
		if s.Has(cap) != want {
			t.Errorf("%s = %v, want %v", cap, s.Has(cap), want)
		}
	}
}

// Instrument turns on, one by one, only the counters that are off, and the
// undo turns off exactly those.
func TestInstrumentMySQLRestoresOnlyWhatWasOff(t *testing.T) {
	t.Parallel()
	db, mock := mocksql.New(t)
	v := 80036
	s := dialects.Server{Dialect: Name, Flavor: FlavorMySQL, VersionNum: v}
	s.Set(CapInnodbMetrics, true, "")
	s.Set(CapIndexMonitor, false, "off")
	expectLedgerStart(t, mock, v)
	on := append([]string{"index_page_splits", "index_page_merge_successful"}, TrxMonitors...)
	mock.ExpectQuery(mocksql.SQL(t, Name, "monitor_state", v)).WillReturnRows(monitorRows(on...))
	mock.ExpectQuery(mocksql.SQL(t, Name, "monitor_vars", v)).WillReturnRows(sqlmock.NewRows([]string{"e", "d"}).AddRow("index_page_splits", nil))
	mock.ExpectExec(mocksql.SQL(t, Name, "monitor_enable", v)).WithArgs("index_page_merge_attempts").WillReturnResult(sqlmock.NewResult(0, 0))
	// The record of what to put back, for a later run if this one dies.
	prior := `{"enabled":["index_page_merge_attempts"],"enable_var_null":false,"disable_var_null":true}`
	for _, st := range sqlparse.Statements(mocksql.SQL(t, Name, "ledger_create", v)) {
		mock.ExpectExec(st).WillReturnResult(sqlmock.NewResult(0, 0))
	}
	mock.ExpectExec(mocksql.SQL(t, Name, "ledger_write", v)).WithArgs(prior, sqlmock.AnyArg()).WillReturnResult(sqlmock.NewResult(0, 1))
	mock.ExpectExec(mocksql.SQL(t, Name, "ledger_unlock", v)).WillReturnResult(sqlmock.NewResult(0, 0))
	undo, warns := Dialect{}.Instrument(context.Background(), db, &s)
	if undo == nil || !s.Has(CapIndexMonitor) || !s.Has(CapTrxMonitor) {
		t.Fatalf("not instrumented: %v", warns)
	}
	if !strings.Contains(mocksql.SQL(t, Name, "monitor_state", v), "STATUS = 'enabled'") {
		t.Error("MySQL monitor_state must read STATUS")
	}
	// The last run measuring (the count is this session's own slot) restores.
	mock.ExpectQuery(mocksql.SQL(t, Name, "ledger_lock", v)).WillReturnRows(sqlmock.NewRows([]string{"r"}).AddRow(1))
	mock.ExpectQuery(mocksql.SQL(t, Name, "measuring_count", v)).WillReturnRows(sqlmock.NewRows([]string{"n"}).AddRow(1))
	mock.ExpectQuery(mocksql.SQL(t, Name, "ledger_pin_count", v)).WillReturnRows(sqlmock.NewRows([]string{"n"}).AddRow(0))
	mock.ExpectQuery(mocksql.SQL(t, Name, "ledger_read", v)).WillReturnRows(sqlmock.NewRows([]string{"prior", "created"}).AddRow(prior, "turned on by writeamp"))
	mock.ExpectExec(mocksql.SQL(t, Name, "monitor_disable", v)).WithArgs("index_page_merge_attempts").WillReturnResult(sqlmock.NewResult(0, 0))
	mock.ExpectExec(mocksql.SQL(t, Name, "monitor_disable_var_default", v)).WillReturnResult(sqlmock.NewResult(0, 0))
	mock.ExpectExec(mocksql.SQL(t, Name, "ledger_drop", v)).WillReturnResult(sqlmock.NewResult(0, 0))
	mock.ExpectExec(mocksql.SQL(t, Name, "ledger_unlock", v)).WillReturnResult(sqlmock.NewResult(0, 0))
	mock.ExpectExec(mocksql.SQL(t, Name, "release_all", v)).WillReturnResult(sqlmock.NewResult(0, 0))
	if err := undo(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s.Has(CapIndexMonitor) || !s.Has(CapTrxMonitor) {
		t.Error("after the undo the index monitors are off again, the transaction ones still on")
	}
}

func TestInstrumentWithoutPrivilege(t *testing.T) {
	t.Parallel()
	db, mock := mocksql.New(t)
	v := 1101119
	s := dialects.Server{Dialect: Name, Flavor: FlavorMariaDB, VersionNum: v, User: "app@%"}
	s.SetProp(PropHostUser, "'app'@'%'")
	s.Set(CapInnodbMetrics, true, "")
	s.Set(CapIndexMonitor, false, "off")
	expectLedgerStart(t, mock, v)
	mock.ExpectQuery(mocksql.SQL(t, Name, "monitor_state", v)).WillReturnRows(monitorRows())
	mock.ExpectQuery(mocksql.SQL(t, Name, "monitor_vars", v)).WillReturnRows(sqlmock.NewRows([]string{"e", "d"}).AddRow(nil, nil))
	mock.ExpectExec(mocksql.SQL(t, Name, "monitor_enable", v)).WithArgs("index_page_splits").WillReturnError(denied("Access denied; you need (at least one of) the SUPER privilege(s) for this operation"))
	mock.ExpectExec(mocksql.SQL(t, Name, "ledger_unlock", v)).WillReturnResult(sqlmock.NewResult(0, 0))
	undo, warns := Dialect{}.Instrument(context.Background(), db, &s)
	if s.Has(CapIndexMonitor) {
		t.Fatal("instrumented without privilege?")
	}
	// Nothing was turned on: the undo only gives the measuring slot back.
	mock.ExpectExec(mocksql.SQL(t, Name, "release_all", v)).WillReturnResult(sqlmock.NewResult(0, 0))
	if err := undo(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "GRANT SUPER ON *.* TO 'app'@'%'") {
		t.Errorf("warnings: %v", warns)
	}
}

// TestMonitorAdminFromShowGrants: SHOW GRANTS, active roles included, tells
// who may SET GLOBAL innodb_monitor_enable; the monitors being off is then
// reported as what it is, with no GRANT for a login that has the privilege.
func TestMonitorAdminFromShowGrants(t *testing.T) {
	t.Parallel()
	maria := dialects.Server{Dialect: Name, Flavor: FlavorMariaDB, VersionNum: 1101119}
	mysql := dialects.Server{Dialect: Name, Flavor: FlavorMySQL, VersionNum: 80036}
	for _, c := range []struct {
		s      dialects.Server
		grants []string
		want   bool
	}{
		{maria, []string{"GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` WITH GRANT OPTION"}, true},
		{maria, []string{"GRANT `r` TO `u`@`localhost`", "GRANT PROCESS ON *.* TO `u`@`localhost`", "GRANT SUPER ON *.* TO `r`"}, true},
		{maria, []string{"GRANT PROCESS, SUPER ON *.* TO `u`@`%`"}, true},
		{maria, []string{"GRANT PROCESS ON *.* TO `u`@`%`", "GRANT ALL PRIVILEGES ON `app`.* TO `u`@`%`"}, false},
		{mysql, []string{"GRANT PROCESS ON *.* TO `u`@`%`", "GRANT SYSTEM_VARIABLES_ADMIN ON *.* TO `u`@`%`"}, true},
		{mysql, []string{"GRANT PROCESS ON *.* TO `u`@`%`"}, false},
	} {
		if got := mayEnableMonitors(c.grants, c.s); got != c.want {
			t.Errorf("%s %q: %v, want %v", c.s.Flavor, c.grants, got, c.want)
		}
	}
	if !grantsRole([]string{"GRANT `monitoring` TO `u`@`%`"}) || grantsRole([]string{"GRANT PROCESS ON *.* TO `u`@`%`"}) {
		t.Error("grantsRole")
	}
	s := maria
	s.SetProp(PropHostUser, "'root'@'localhost'")
	s.Set(CapMonitorAdmin, true, "")
	if why := MonitorReason(s, IndexMonitors).String(); strings.Contains(why, "GRANT") || !strings.Contains(why, "--enable-monitors") || !strings.Contains(why, "are off") {
		t.Errorf("a login that may enable them is told: %s", why)
	}
	s.Set(CapMonitorAdmin, false, "")
	if why := MonitorReason(s, IndexMonitors).String(); !strings.Contains(why, "GRANT SUPER ON *.* TO 'root'@'localhost'") {
		t.Errorf("a login that may not: %s", why)
	}
}

func TestParseHistoryLength(t *testing.T) {
	t.Parallel()
	status := "------------\nTRANSACTIONS\n------------\nTrx id counter 1234\nPurge done for trx's n:o < 1230 undo n:o < 0\nHistory list length 42\n"
	if n, ok := parseHistoryLength(status); !ok || n != 42 {
		t.Errorf("%d %v", n, ok)
	}
	if _, ok := parseHistoryLength("nothing"); ok {
		t.Error("found a length in nothing")
	}
}

// expectLedgerStart: Instrument takes a measuring slot (GET_LOCK returns a
// BIGINT 1), the ledger lock, and finds no record (writeamp_ledger does not
// exist: error 1049).
func expectLedgerStart(t testing.TB, mock sqlmock.Sqlmock, v int) {
	mock.ExpectQuery(mocksql.SQL(t, Name, "measuring_slot", v)).WithArgs(0).WillReturnRows(sqlmock.NewRows([]string{"GET_LOCK"}).AddRow(int64(1)))
	mock.ExpectQuery(mocksql.SQL(t, Name, "ledger_lock", v)).WillReturnRows(sqlmock.NewRows([]string{"GET_LOCK"}).AddRow(int64(1)))
	mock.ExpectQuery(mocksql.SQL(t, Name, "ledger_read", v)).WillReturnError(&driver.MySQLError{Number: 1049, Message: "Unknown database 'writeamp_ledger'"})
}
