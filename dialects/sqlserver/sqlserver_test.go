package sqlserver

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
)

const secret = "Xq7Secr3tPw"

func TestRegisteredAndChosenByScheme(t *testing.T) {
	for _, dsn := range []string{"sqlserver://sa:x@h:1433?database=kc", "mssql://sa:x@h:1433?database=kc"} {
		d, err := dialects.ForDSN(dsn)
		if err != nil || d.Name() != Name {
			t.Fatalf("%s -> %v, %v", dsn, d, err)
		}
	}
}

func TestRedact(t *testing.T) {
	cases := map[string]string{
		"sqlserver://sa:" + secret + "@127.0.0.1:1433?database=kc":   "sqlserver://sa:xxxxx@127.0.0.1:1433?database=kc",
		"sqlserver://sa@host?database=kc&password=" + secret:         "sqlserver://sa@host?database=kc&password=xxxxx",
		"sqlserver://sa:p%40ss%2Fw0rd@host:1433?database=kc":         "sqlserver://sa:xxxxx@host:1433?database=kc",
		"sqlserver://sa:" + secret + "@host:notaport?database=kc":    "sqlserver://sa:xxxxx@host:notaport?database=kc",
		"server=host;user id=sa;password=" + secret + ";database=kc": "server=host;user id=sa;password=xxxxx;database=kc",
		"sqlserver://host:1433?database=kc":                          "sqlserver://host:1433?database=kc",
	}
	for in, want := range cases {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
		if strings.Contains(Redact(in), secret) {
			t.Errorf("password left in %q", Redact(in))
		}
	}
	for in, want := range map[string]string{
		`server=h;user id=sa;password="a;b""c";database=kc`: "server=h;user id=sa;password=xxxxx;database=kc",
		"odbc:server=h;uid=sa;pwd={a;b}}c};database=kc":     "odbc:server=h;uid=sa;pwd=xxxxx;database=kc",
		`server=h;user id=sa;app name="x;password=s3`:       "server=h;user id=sa;app name=xxxxx",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestOpenClosedPortFailsFast: nothing listens on port 1; Open must give up
// quickly, name the redacted DSN and never the password.
func TestOpenClosedPortFailsFast(t *testing.T) {
	dsn := "sqlserver://sa:" + secret + "@127.0.0.1:1?database=kc"
	start := time.Now()
	db, err := Dialect{}.Open(context.Background(), dsn)
	if err == nil {
		db.Close()
		t.Fatal("Open succeeded against a closed port")
	}
	if el := time.Since(start); el > ConnectTimeout+5*time.Second {
		t.Fatalf("Open took %s", el)
	}
	msg := err.Error()
	if strings.Contains(msg, secret) {
		t.Fatalf("password in error: %s", msg)
	}
	if !strings.Contains(msg, "sqlserver://sa:xxxxx@127.0.0.1:1") {
		t.Fatalf("error should name the redacted DSN: %s", msg)
	}
}

func TestOpenBadDSNDoesNotEchoPassword(t *testing.T) {
	_, err := Dialect{}.Open(context.Background(), "sqlserver://sa:"+secret+"@127.0.0.1:notaport?database=kc")
	if err == nil || strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), "--dsn") {
		t.Fatalf("bad DSN error = %v", err)
	}
}

func TestConfigBoundsTheDialTimeout(t *testing.T) {
	cfg, err := Config("sqlserver://sa:x@h:1433?database=kc&dial+timeout=60")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.DialTimeout != ConnectTimeout || cfg.AppName != "writeamp" || cfg.Database != "kc" {
		t.Fatalf("config = dial %s app %q db %q", cfg.DialTimeout, cfg.AppName, cfg.Database)
	}
}

func TestParseVersion(t *testing.T) {
	for in, want := range map[string]int{"16.0.4135.4": 1604135, "15.0.4375.4": 1504375, "13.0.5026.0": 1305026, "14.0.3456.2": 1403456} {
		if got, err := ParseVersion(in); err != nil || got != want {
			t.Errorf("ParseVersion(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "16", "16.0", "x.0.1.2"} {
		if _, err := ParseVersion(bad); err == nil {
			t.Errorf("ParseVersion(%q) should fail", bad)
		}
	}
	if supportsOptimizeForSequentialKey(Version2017+9999) || !supportsOptimizeForSequentialKey(Version2019) {
		t.Error("OPTIMIZE_FOR_SEQUENTIAL_KEY is 2019+")
	}
	if supportsPerformanceStatePermissions(Version2019+4375) || !supportsPerformanceStatePermissions(AzureVersionNum) {
		t.Error("PERFORMANCE STATE permissions are 2022+ and Azure")
	}
}

var probeCols = []string{"version", "edition", "server", "db", "login", "user", "sysadmin", "db_owner", "db_backupoperator",
	"tempdb_created", "recovery", "service_objective", "ms_serverstatereader"}

var permCols = []string{"db", "srv", "db_full"}

func TestProbeOnPremises2019(t *testing.T) {
	db, mock := mocksql.New(t)
	started := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	mock.ExpectQuery(mocksql.SQL(t, Name, "probe", 0)).WillReturnRows(sqlmock.NewRows(probeCols).
		AddRow("15.0.4375.4", 3, "SQL1", "kc", "wa_login", "wa", 0, 1, 0, started, "FULL", nil, nil))
	expectRole(t, mock, 1504375, 0, false, "READ_WRITE", int64(1))
	mock.ExpectQuery(mocksql.SQL(t, Name, "permissions", 1504375)).WillReturnRows(sqlmock.NewRows(permCols).AddRow(1, 0, 1))
	s, err := Dialect{}.Probe(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	if s.VersionNum != 1504375 || s.Flavor != "" || s.Database != "kc" || s.User != "wa" || !s.StartedAt.Equal(started) || s.Identity != "SQL1/kc" {
		t.Fatalf("server = %+v", s)
	}
	if !s.Has(CapViewDatabaseState) || s.Has(CapViewServerState) || s.Has(CapInstanceDMVs) || !s.Has(CapCheckpoint) || s.Has(CapFnDblog) || !s.Has(CapOptimizeSequentialKey) {
		t.Fatalf("caps = %v", s.Caps)
	}
	if why := s.Why(CapViewServerState); !strings.Contains(why, "USE master; GRANT VIEW SERVER STATE TO [wa_login]") {
		t.Errorf("reason = %q", why)
	}
	if why := s.Why(CapFnDblog); !strings.Contains(why, "sysadmin") {
		t.Errorf("fn_dblog reason = %q", why)
	}
	if !strings.Contains(mocksql.SQL(t, Name, "permissions", 1504375), "'VIEW DATABASE STATE'") {
		t.Error("2019 must probe VIEW DATABASE STATE")
	}
}

func TestProbeAzureSQLDatabase(t *testing.T) {
	db, mock := mocksql.New(t)
	mock.ExpectQuery(mocksql.SQL(t, Name, "probe", 0)).WillReturnRows(sqlmock.NewRows(probeCols).
		AddRow("12.0.2000.8", 5, "myserver", "kc", "wa", "wa", nil, 0, 0, nil, "FULL", "P1", 0))
	expectRole(t, mock, AzureVersionNum, 0, false, "READ_WRITE", nil)
	mock.ExpectQuery(mocksql.SQL(t, Name, "permissions", AzureVersionNum)).WillReturnRows(sqlmock.NewRows(permCols).AddRow(0, nil, 0))
	s, err := Dialect{}.Probe(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	if s.Flavor != FlavorAzureSQLDatabase || s.VersionNum != AzureVersionNum || !s.StartedAt.IsZero() {
		t.Fatalf("server = %+v", s)
	}
	if !s.Has(CapDatabaseWaitStats) || s.Has(CapFnDblog) || s.Has(CapViewDatabaseState) || s.Has(CapViewServerState) {
		t.Fatalf("caps = %v", s.Caps)
	}
	if why := s.Why(CapViewDatabaseState); !strings.Contains(why, "GRANT VIEW DATABASE PERFORMANCE STATE TO [wa]") || strings.Contains(why, "USE") {
		t.Errorf("reason = %q", why)
	}
	if !strings.Contains(mocksql.SQL(t, Name, "permissions", AzureVersionNum), "PERFORMANCE STATE") {
		t.Error("Azure must probe the PERFORMANCE STATE permissions")
	}
}

func TestProbeRefusesSQLServer2014(t *testing.T) {
	db, mock := mocksql.New(t)
	mock.ExpectQuery(mocksql.SQL(t, Name, "probe", 0)).WillReturnRows(sqlmock.NewRows(probeCols).
		AddRow("12.0.6024.0", 3, "OLD", "kc", "sa", "dbo", 1, 1, 0, time.Now(), "SIMPLE", nil, nil))
	_, err := Dialect{}.Probe(context.Background(), db)
	if !errors.Is(err, dialects.ErrUnsupported) || !strings.Contains(err.Error(), "2016") {
		t.Fatalf("want unsupported, got %v", err)
	}
}

func TestPrivilegeErrors(t *testing.T) {
	s := dialects.Server{Dialect: Name, VersionNum: Version2019, Database: "kc", User: "wa"}
	s.SetProp(PropLogin, "dom\\wa]x")
	p, g := Privilege(s, ServerScope)
	if p != "VIEW SERVER STATE" || g != "USE master; GRANT VIEW SERVER STATE TO [dom\\wa]]x]" {
		t.Errorf("server: %q %q", p, g)
	}
	s.VersionNum = Version2022
	if p, _ := Privilege(s, DatabaseScope); p != "VIEW DATABASE PERFORMANCE STATE" {
		t.Errorf("2022 database: %q", p)
	}
	if AsPrivilegeError(errors.New("mssql: Invalid column name 'x'. (207)"), s, ServerScope).Error() != "mssql: Invalid column name 'x'. (207)" {
		t.Error("other errors must pass through")
	}
	if Need(dialects.Server{}, CapViewServerState, ServerScope) != nil {
		t.Error("an unprobed capability must not refuse")
	}
}

func TestBeforeMeasureCheckpoints(t *testing.T) {
	db, mock := mocksql.New(t)
	s := dialects.Server{Dialect: Name, VersionNum: Version2019}
	s.Set(CapCheckpoint, true, "")
	mock.ExpectExec(mocksql.SQL(t, Name, "checkpoint", s.VersionNum)).WillReturnResult(sqlmock.NewResult(0, 0))
	if w := (Dialect{}).BeforeMeasure(context.Background(), db, s); len(w) != 0 {
		t.Fatalf("warnings = %v", w)
	}
	s.Set(CapCheckpoint, false, "CHECKPOINT needs sysadmin, db_owner or db_backupoperator")
	w := Dialect{}.BeforeMeasure(context.Background(), db, s) // no statement expected
	if len(w) != 1 || !strings.Contains(w[0], "db_backupoperator") {
		t.Fatalf("warnings = %v", w)
	}
	if w := (Dialect{}).Settle(context.Background(), db, s, nil); len(w) != 1 || !strings.Contains(w[0], "ghost cleanup") {
		t.Fatalf("settle = %v", w)
	}
}

// TestProbeCheckpointAcceptsDbBackupoperator: CHECKPOINT may be run by
// sysadmin, db_owner and db_backupoperator
// (https://learn.microsoft.com/sql/t-sql/language-elements/checkpoint-transact-sql#permissions).
func TestProbeCheckpointAcceptsDbBackupoperator(t *testing.T) {
	for _, c := range []struct {
		sysadmin, owner, backup any
		want                    bool
	}{{1, 0, 0, true}, {0, 1, 0, true}, {0, 0, 1, true}, {0, 0, 0, false}, {nil, nil, nil, false}} {
		db, mock := mocksql.New(t)
		mock.ExpectQuery(mocksql.SQL(t, Name, "probe", 0)).WillReturnRows(sqlmock.NewRows(probeCols).
			AddRow("16.0.4135.4", 3, "SQL1", "kc", "wa_login", "wa", c.sysadmin, c.owner, c.backup, time.Now(), "FULL", nil, nil))
		expectRole(t, mock, 1604135, 0, false, "READ_WRITE", int64(1))
		mock.ExpectQuery(mocksql.SQL(t, Name, "permissions", 1604135)).WillReturnRows(sqlmock.NewRows(permCols).AddRow(1, 1, 1))
		s, err := Dialect{}.Probe(context.Background(), db)
		if err != nil {
			t.Fatal(err)
		}
		if s.Has(CapCheckpoint) != c.want {
			t.Errorf("sysadmin %v db_owner %v db_backupoperator %v: checkpoint = %v", c.sysadmin, c.owner, c.backup, s.Has(CapCheckpoint))
		}
		if !c.want && !strings.Contains(s.Why(CapCheckpoint), "ALTER ROLE db_backupoperator ADD MEMBER [wa]") {
			t.Errorf("reason = %q", s.Why(CapCheckpoint))
		}
	}
}

// TestProbeAzureInstanceDMVsByServiceObjective: sys.dm_os_performance_counters
// on Azure SQL Database needs the server admin (dbo), the Entra admin or
// ##MS_ServerStateReader## on Basic, S0, S1 and in elastic pools; VIEW
// DATABASE STATE elsewhere. The probe promises nothing it cannot know.
func TestProbeAzureInstanceDMVsByServiceObjective(t *testing.T) {
	for _, c := range []struct {
		objective, user string
		reader, dbState any
		want            string // "yes", "no", "unprobed"
	}{
		{"S0", "wa", 0, 1, "no"},
		{"Basic", "wa", 0, 1, "no"},
		{"ElasticPool", "wa", 0, 1, "no"},
		{"S1", "dbo", 0, 0, "yes"},
		{"S0", "wa", 1, 0, "yes"},
		{"S1", "wa", nil, 1, "unprobed"},
		{"P1", "wa", 0, 1, "yes"},
		{"S3", "wa", 0, 0, "no"},
	} {
		db, mock := mocksql.New(t)
		mock.ExpectQuery(mocksql.SQL(t, Name, "probe", 0)).WillReturnRows(sqlmock.NewRows(probeCols).
			AddRow("12.0.2000.8", 5, "myserver", "kc", "wa_login", c.user, nil, 0, 0, nil, "FULL", c.objective, c.reader))
		expectRole(t, mock, AzureVersionNum, 0, false, "READ_WRITE", nil)
		mock.ExpectQuery(mocksql.SQL(t, Name, "permissions", AzureVersionNum)).WillReturnRows(sqlmock.NewRows(permCols).AddRow(1, nil, c.dbState))
		s, err := Dialect{}.Probe(context.Background(), db)
		if err != nil {
			t.Fatal(err)
		}
		ok, probed := s.Caps[CapInstanceDMVs]
		got := map[bool]string{true: "yes", false: "no"}[ok]
		if !probed {
			got = "unprobed"
		}
		if got != c.want {
			t.Errorf("%s as %s (reader %v, VIEW DATABASE STATE %v): instance DMVs %s, want %s", c.objective, c.user, c.reader, c.dbState, got, c.want)
		}
		why := s.Why(CapInstanceDMVs)
		switch {
		case c.want == "no" && RestrictedTier(s):
			if !strings.Contains(why, "##MS_ServerStateReader##") || strings.Contains(why, "GRANT VIEW DATABASE") {
				t.Errorf("%s: reason = %q", c.objective, why)
			}
		case c.want == "no":
			if !strings.Contains(why, "GRANT VIEW DATABASE STATE TO [wa]") {
				t.Errorf("%s: reason = %q", c.objective, why)
			}
		}
		if !s.Has(CapViewServerState) {
			t.Errorf("%s: the log file DMV answers to the database permission on Azure", c.objective)
		}
	}
}
