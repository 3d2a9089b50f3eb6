package oracle

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/DATA-DOG/go-sqlmock"
	"github.com/sijms/go-ora/v2/network"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
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

func mockDB(t *testing.T) (*sql.DB, sqlmock.Sqlmock) {
	t.Helper()
	db, mock, err := sqlmock.New(sqlmock.QueryMatcherOption(sqlmock.QueryMatcherEqual))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := mock.ExpectationsWereMet(); err != nil {
			t.Error(err)
		}
		db.Close()
	})
	return db, mock
}

func expectIdentity(mock sqlmock.Sqlmock, vn int) {
	mock.ExpectQuery(queries.MustGet(Name, "probe", vn)).WillReturnRows(sqlmock.NewRows([]string{"db", "con", "user", "dbid", "host"}).
		AddRow("FREE", "FREEPDB1", "WA", "1234567", "dbhost"))
}

func TestProbe19cWithCatalogAccess(t *testing.T) {
	db, mock := mockDB(t)
	mock.ExpectQuery(queries.MustGet(Name, "version", 0)).WillReturnRows(sqlmock.NewRows([]string{"v"}).AddRow("19.0.0.0.0"))
	mock.ExpectQuery(queries.MustGet(Name, "version_full", 190000)).WillReturnRows(sqlmock.NewRows([]string{"v"}).AddRow("19.21.0.0.0"))
	expectIdentity(mock, 192100)
	mock.ExpectQuery(queries.MustGet(Name, "instance", 192100)).WillReturnRows(sqlmock.NewRows([]string{"t", "i"}).AddRow("2026-01-02 03:04:05", "FREE"))
	mock.ExpectQuery(queries.MustGet(Name, "statistics_level", 192100)).WillReturnRows(sqlmock.NewRows([]string{"v"}).AddRow("TYPICAL"))
	s, err := Dialect{}.Probe(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	if s.Version != "19.21.0.0.0" || s.VersionNum != 192100 || s.Database != "FREEPDB1" || s.User != "WA" || s.Identity != "dbid-1234567/FREEPDB1" {
		t.Fatalf("server = %+v", s)
	}
	if !s.StartedAt.Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) || !s.Has(CapStatisticsLevel) || !s.Has(CapInstance) {
		t.Fatalf("server = %+v", s)
	}
}

func TestProbeWithoutCatalogAccessAndBasicLevel(t *testing.T) {
	db, mock := mockDB(t)
	denied := &network.OracleError{ErrCode: 942, ErrMsg: "ORA-00942: table or view does not exist"}
	mock.ExpectQuery(queries.MustGet(Name, "version", 0)).WillReturnRows(sqlmock.NewRows([]string{"v"}).AddRow("23.0.0.0.0"))
	mock.ExpectQuery(queries.MustGet(Name, "version_full", 230000)).WillReturnRows(sqlmock.NewRows([]string{"v"}).AddRow("23.4.0.24.5"))
	expectIdentity(mock, 230400)
	mock.ExpectQuery(queries.MustGet(Name, "instance", 230400)).WillReturnError(denied)
	mock.ExpectQuery(queries.MustGet(Name, "statistics_level", 230400)).WillReturnRows(sqlmock.NewRows([]string{"v"}).AddRow("BASIC"))
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
	db, mock := mockDB(t)
	mock.ExpectQuery(queries.MustGet(Name, "version", 0)).WillReturnRows(sqlmock.NewRows([]string{"v"}).AddRow("11.2.0.4.0"))
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
	if AsPrivilegeError(other, s, "v_$sysstat") != error(other) {
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
