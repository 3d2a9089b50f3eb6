package oracle

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/DATA-DOG/go-sqlmock"
	go_ora "github.com/sijms/go-ora/v2"
	"github.com/sijms/go-ora/v2/network"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
)

const secret = "Xq7Secr3tPw"

func TestRegisteredAndChosenByScheme(t *testing.T) {
	d, err := dialects.ForDSN("oracle://system:x@h:1521/FREEPDB1")
	if err != nil || d.Name() != Name {
		t.Fatalf("ForDSN -> %v, %v", d, err)
	}
}

func TestRedact(t *testing.T) {
	cases := map[string]string{
		"oracle://system:" + secret + "@127.0.0.1:1521/FREEPDB1": "oracle://system:xxxxx@127.0.0.1:1521/FREEPDB1",
		"oracle://system:p%40ss@db:1521/ORCL?SSL=true":           "oracle://system:xxxxx@db:1521/ORCL?SSL=true",
		"oracle://system:" + secret + "@db:bad/ORCL":             "oracle://system:xxxxx@db:bad/ORCL",
		"oracle://u@db:1521/ORCL?wallet+password=" + secret:      "oracle://u@db:1521/ORCL?wallet+password=xxxxx",
		"oracle://db:1521/ORCL":                                  "oracle://db:1521/ORCL",
	}
	for in, want := range cases {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOpenClosedPortFailsFast(t *testing.T) {
	dsn := "oracle://system:" + secret + "@127.0.0.1:1/FREEPDB1"
	start := time.Now()
	db, err := Dialect{}.Open(context.Background(), dsn)
	if err == nil {
		db.Close()
		t.Fatal("Open succeeded against a closed port")
	}
	if el := time.Since(start); el > ConnectTimeout+5*time.Second {
		t.Fatalf("Open took %s", el)
	}
	if msg := err.Error(); strings.Contains(msg, secret) || !strings.Contains(msg, "oracle://system:xxxxx@127.0.0.1:1/FREEPDB1") {
		t.Fatalf("error = %s", msg)
	}
}

func TestOpenBadDSNDoesNotEchoPassword(t *testing.T) {
	_, err := Dialect{}.Open(context.Background(), "oracle://system:"+secret+"@127.0.0.1:1:2/FREEPDB1")
	if err == nil || strings.Contains(err.Error(), secret) {
		t.Fatalf("bad DSN error = %v", err)
	}
}

func TestParseVersion(t *testing.T) {
	for in, want := range map[string]int{"19.21.0.0.0": 192100, "19.0.0.0.0": 190000, "23.4.0.24.5": 230400, "12.2.0.1.0": 120200, "18.3.0.0.0": 180300} {
		if got, err := ParseVersion(in); err != nil || got != want {
			t.Errorf("ParseVersion(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "19", "x.y"} {
		if _, err := ParseVersion(bad); err == nil {
			t.Errorf("ParseVersion(%q) should fail", bad)
		}
	}
	if supportsNoAuthentication(Version12_2+1) || !supportsNoAuthentication(Version18) {
		t.Error("NO AUTHENTICATION is 18c+")
	}
}

var probeCols = []string{"db_name", "con_name", "user", "server_host", "con_id"}

func expectIdentity(t testing.TB, mock sqlmock.Sqlmock, vn int) {
	mock.ExpectQuery(mocksql.SQL(t, Name, "probe", vn)).WillReturnRows(sqlmock.NewRows(probeCols).
		AddRow("FREE", "FREEPDB1", "WA", "dbhost", "3"))
	mock.ExpectQuery(mocksql.SQL(t, Name, "dbid", vn)).WillReturnRows(sqlmock.NewRows([]string{"dbid"}).AddRow("1234567"))
	expectRole(t, mock, vn, RolePrimary, "FREE")
}

func params(level, compatible string) *sqlmock.Rows {
	return sqlmock.NewRows([]string{"name", "value"}).AddRow("compatible", compatible).AddRow("statistics_level", level)
}

func TestProbe19cWithCatalogAccess(t *testing.T) {
	db, mock := mocksql.New(t)
	mock.ExpectQuery(mocksql.SQL(t, Name, "version", 0)).WillReturnRows(sqlmock.NewRows([]string{"v"}).AddRow("19.0.0.0.0"))
	mock.ExpectQuery(mocksql.SQL(t, Name, "version_full", 190000)).WillReturnRows(sqlmock.NewRows([]string{"v"}).AddRow("19.21.0.0.0"))
	expectIdentity(t, mock, 192100)
	mock.ExpectQuery(mocksql.SQL(t, Name, "instance", 192100)).WillReturnRows(sqlmock.NewRows([]string{"t", "i"}).AddRow("2026-01-02 03:04:05", "FREE"))
	mock.ExpectQuery(mocksql.SQL(t, Name, "parameters", 192100)).WillReturnRows(params("TYPICAL", "19.0.0"))
	s, err := Dialect{}.Probe(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	if s.Version != "19.21.0.0.0" || s.VersionNum != 192100 || s.Database != "FREEPDB1" || s.User != "WA" || s.Identity != "dbid-1234567/FREEPDB1" {
		t.Fatalf("server = %+v", s)
	}
	if !s.StartedAt.Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) || !s.Has(CapStatisticsLevel) || !s.Has(CapInstance) || !s.Has(CapLongIdentifiers) {
		t.Fatalf("server = %+v", s)
	}
	if !InPDB(s) || s.Prop(dialects.PropMaxIdentifierBytes) != "128" {
		t.Fatalf("props = %v", s.Props)
	}
}

func TestProbeWithoutCatalogAccessAndBasicLevel(t *testing.T) {
	db, mock := mocksql.New(t)
	denied := &network.OracleError{ErrCode: 942, ErrMsg: "ORA-00942: table or view does not exist"}
	mock.ExpectQuery(mocksql.SQL(t, Name, "version", 0)).WillReturnRows(sqlmock.NewRows([]string{"v"}).AddRow("23.0.0.0.0"))
	mock.ExpectQuery(mocksql.SQL(t, Name, "version_full", 230000)).WillReturnRows(sqlmock.NewRows([]string{"v"}).AddRow("23.4.0.24.5"))
	expectIdentity(t, mock, 230400)
	mock.ExpectQuery(mocksql.SQL(t, Name, "instance", 230400)).WillReturnError(denied)
	mock.ExpectQuery(mocksql.SQL(t, Name, "parameters", 230400)).WillReturnRows(params("BASIC", "23.0.0"))
	s, err := Dialect{}.Probe(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	if s.Has(CapInstance) || !strings.Contains(s.Why(CapInstance), "GRANT SELECT_CATALOG_ROLE TO \"WA\"") {
		t.Errorf("instance reason = %q", s.Why(CapInstance))
	}
	if s.Has(CapStatisticsLevel) || !strings.Contains(s.Why(CapStatisticsLevel), "ALTER SYSTEM SET statistics_level = TYPICAL") {
		t.Errorf("statistics_level reason = %q", s.Why(CapStatisticsLevel))
	}
}

func TestProbeRefusesOracle11(t *testing.T) {
	db, mock := mocksql.New(t)
	mock.ExpectQuery(mocksql.SQL(t, Name, "version", 0)).WillReturnRows(sqlmock.NewRows([]string{"v"}).AddRow("11.2.0.4.0"))
	_, err := Dialect{}.Probe(context.Background(), db)
	if !errors.Is(err, dialects.ErrUnsupported) {
		t.Fatalf("want unsupported, got %v", err)
	}
}

func TestPrivilegeErrors(t *testing.T) {
	s := dialects.Server{User: "wa"}
	for _, err := range []error{
		&network.OracleError{ErrCode: 942, ErrMsg: "ORA-00942: table or view does not exist"},
		&network.OracleError{ErrCode: 1031, ErrMsg: "ORA-01031: insufficient privileges"},
		errors.New("wrapped: ORA-00942: table or view does not exist"),
	} {
		var pe *dialects.PrivilegeError
		if !errors.As(AsPrivilegeError(err, s, "v_$sysstat"), &pe) || pe.Grant != `GRANT SELECT_CATALOG_ROLE TO "WA"; or, as SYS: GRANT SELECT ON sys.v_$sysstat TO "WA"` {
			t.Errorf("%v -> %+v", err, pe)
		}
	}
	other := &network.OracleError{ErrCode: 904, ErrMsg: "ORA-00904: invalid identifier"}
	if AsPrivilegeError(other, s, "v_$sysstat") != error(other) { //nolint:errorlint // the very value must come back unwrapped; errors.Is would accept a wrapper too
		t.Error("other errors must pass through")
	}
}

func TestSettleNotes(t *testing.T) {
	if w := (Dialect{}).BeforeMeasure(context.Background(), nil, dialects.Server{}); w != nil {
		t.Errorf("BeforeMeasure = %v", w)
	}
	if w := (Dialect{}).Settle(context.Background(), nil, dialects.Server{}, nil); len(w) != 1 || !strings.Contains(w[0], "block cleanout") {
		t.Errorf("Settle = %v", w)
	}
}

// TestProbeDBIDNeverFailsTheProbe: USERENV's DBID is read on its own; an
// ORA-02003 (unknown USERENV parameter) falls back to V$DATABASE, and without
// that the probe goes on with the names.
func TestProbeDBIDNeverFailsTheProbe(t *testing.T) {
	invalid := &network.OracleError{ErrCode: 2003, ErrMsg: "ORA-02003: invalid USERENV parameter"}
	denied := &network.OracleError{ErrCode: 942, ErrMsg: "ORA-00942: table or view does not exist"}
	for _, c := range []struct {
		viaVDatabase error
		identity     string
	}{{nil, "dbid-7654321/FREEPDB1"}, {denied, "db-FREE@dbhost/FREEPDB1"}} {
		db, mock := mocksql.New(t)
		mock.ExpectQuery(mocksql.SQL(t, Name, "version", 0)).WillReturnRows(sqlmock.NewRows([]string{"v"}).AddRow("19.0.0.0.0"))
		mock.ExpectQuery(mocksql.SQL(t, Name, "version_full", 190000)).WillReturnRows(sqlmock.NewRows([]string{"v"}).AddRow("19.21.0.0.0"))
		mock.ExpectQuery(mocksql.SQL(t, Name, "probe", 192100)).WillReturnRows(sqlmock.NewRows(probeCols).AddRow("FREE", "FREEPDB1", "WA", "dbhost", "3"))
		mock.ExpectQuery(mocksql.SQL(t, Name, "dbid", 192100)).WillReturnError(invalid)
		e := mock.ExpectQuery(mocksql.SQL(t, Name, "dbid_v_database", 192100))
		if c.viaVDatabase != nil {
			e.WillReturnError(c.viaVDatabase)
		} else {
			e.WillReturnRows(sqlmock.NewRows([]string{"dbid"}).AddRow("7654321"))
		}
		expectRole(t, mock, 192100, RolePrimary, "FREE")
		mock.ExpectQuery(mocksql.SQL(t, Name, "instance", 192100)).WillReturnError(denied)
		mock.ExpectQuery(mocksql.SQL(t, Name, "parameters", 192100)).WillReturnError(denied)
		s, err := Dialect{}.Probe(context.Background(), db)
		if err != nil {
			t.Fatalf("the probe must not fail for want of a DBID: %v", err)
		}
		if s.Identity != c.identity || !strings.Contains(s.Prop(PropDBIDSource), "ORA-02003") {
			t.Errorf("identity %q, source %q", s.Identity, s.Prop(PropDBIDSource))
		}
	}
}

// TestCompatibleBelow122LimitsNamesTo30Bytes: on 19c with COMPATIBLE 12.1
// the workload's 42-byte index names would fail with ORA-00972; Prepare is
// refused before anything is created, naming COMPATIBLE.
func TestCompatibleBelow122LimitsNamesTo30Bytes(t *testing.T) {
	db, mock := mocksql.New(t)
	mock.ExpectQuery(mocksql.SQL(t, Name, "version", 0)).WillReturnRows(sqlmock.NewRows([]string{"v"}).AddRow("19.0.0.0.0"))
	mock.ExpectQuery(mocksql.SQL(t, Name, "version_full", 190000)).WillReturnRows(sqlmock.NewRows([]string{"v"}).AddRow("19.21.0.0.0"))
	expectIdentity(t, mock, 192100)
	mock.ExpectQuery(mocksql.SQL(t, Name, "instance", 192100)).WillReturnRows(sqlmock.NewRows([]string{"t", "i"}).AddRow("2026-01-02 03:04:05", "FREE"))
	mock.ExpectQuery(mocksql.SQL(t, Name, "parameters", 192100)).WillReturnRows(params("TYPICAL", "12.1.0.2"))
	s, err := Dialect{}.Probe(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	if s.Has(CapLongIdentifiers) || !strings.Contains(s.Why(CapLongIdentifiers), "COMPATIBLE is 12.1.0.2") {
		t.Fatalf("long identifiers on COMPATIBLE 12.1: %v %q", s.Caps, s.Why(CapLongIdentifiers))
	}
	ddl := mocksql.SQL(t, Name, "rt_ddl_baseline", s.VersionNum)
	err = dialects.CheckIdentifiers(s, ddl)
	if err == nil || !strings.Contains(err.Error(), "idx_offline_uss_by_broker_session_id is 36 bytes") || !strings.Contains(err.Error(), "COMPATIBLE") {
		t.Fatalf("CheckIdentifiers = %v", err)
	}
	s.SetProp(dialects.PropMaxIdentifierBytes, "128")
	if err := dialects.CheckIdentifiers(s, ddl); err != nil {
		t.Fatalf("COMPATIBLE 19: %v", err)
	}
}

func TestWithProgram(t *testing.T) {
	for in, want := range map[string]string{
		"oracle://u:p@h:1521/svc":                     "oracle://u:p@h:1521/svc?PROGRAM=writeamp",
		"oracle://u:p@h:1521/svc?TIMEOUT=5":           "oracle://u:p@h:1521/svc?TIMEOUT=5&PROGRAM=writeamp",
		"oracle://u:p@h:1521/svc?program=mine":        "oracle://u:p@h:1521/svc?program=mine",
		"(DESCRIPTION=(ADDRESS=(HOST=h)(PORT=1521)))": "(DESCRIPTION=(ADDRESS=(HOST=h)(PORT=1521)))",
	} {
		if got := WithProgram(in); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
	cfg, err := go_ora.ParseConfig(WithProgram("oracle://u:p@h:1521/svc"))
	if err != nil || cfg.ClientInfo.ProgramName != "writeamp" {
		t.Errorf("go-ora reads the program: %v %+v", err, cfg)
	}
}
