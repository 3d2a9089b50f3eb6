package oracle

import (
	"context"
	"strings"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"
	"github.com/sijms/go-ora/v2/network"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
)

// expectRole answers the probe's role query as USERENV does: two VARCHAR2s.
func expectRole(t testing.TB, mock sqlmock.Sqlmock, vn int, role, unique string) {
	mock.ExpectQuery(mocksql.SQL(t, Name, "database_role", vn)).
		WillReturnRows(sqlmock.NewRows([]string{"role", "db_unique_name"}).AddRow(role, unique))
}

func probeWithRole(t *testing.T, answer func(sqlmock.Sqlmock)) dialects.Server {
	t.Helper()
	db, mock := mocksql.New(t)
	mock.ExpectQuery(mocksql.SQL(t, Name, "version", 0)).WillReturnRows(sqlmock.NewRows([]string{"v"}).AddRow("19.0.0.0.0"))
	mock.ExpectQuery(mocksql.SQL(t, Name, "version_full", 190000)).WillReturnRows(sqlmock.NewRows([]string{"v"}).AddRow("19.21.0.0.0"))
	mock.ExpectQuery(mocksql.SQL(t, Name, "probe", 192100)).WillReturnRows(sqlmock.NewRows(probeCols).AddRow("BOSTON", nil, "WA", "dbhost", "0"))
	mock.ExpectQuery(mocksql.SQL(t, Name, "dbid", 192100)).WillReturnRows(sqlmock.NewRows([]string{"dbid"}).AddRow("1234567"))
	answer(mock)
	mock.ExpectQuery(mocksql.SQL(t, Name, "instance", 192100)).WillReturnRows(sqlmock.NewRows([]string{"t", "i"}).AddRow("2026-01-02 03:04:05", "BOSTON"))
	mock.ExpectQuery(mocksql.SQL(t, Name, "parameters", 192100)).WillReturnRows(params("TYPICAL", "19.0.0"))
	s, err := Dialect{}.Probe(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestProbePhysicalStandby: the role is typed — a standby is no primary for
// a reason of kind Role, and its write counters are denied for one too, so
// the collectors mark them unavailable instead of diffing false zeros.
func TestProbePhysicalStandby(t *testing.T) {
	s := probeWithRole(t, func(m sqlmock.Sqlmock) { expectRole(t, m, 192100, "PHYSICAL STANDBY", "boston_sby") })
	if !IsStandby(s) || s.Has(CapPrimary) || s.Has(CapWriteCounters) {
		t.Fatalf("caps = %v", s.Caps)
	}
	for _, c := range []string{CapPrimary, CapWriteCounters} {
		if r := s.Reason(c); r.Kind != dialects.Role || !strings.Contains(r.Text, "physical standby") || r.Fix != "" {
			t.Errorf("%s reason = %+v", c, r)
		}
	}
	if s.Prop(PropDBUniqueName) != "boston_sby" || s.Prop(PropDatabaseRole) != RolePhysicalStandby {
		t.Errorf("props = %v", s.Props)
	}
}

func TestProbeRoles(t *testing.T) {
	s := probeWithRole(t, func(m sqlmock.Sqlmock) { expectRole(t, m, 192100, "PRIMARY", "boston") })
	if !s.Has(CapPrimary) || IsStandby(s) || !s.Has(CapWriteCounters) {
		t.Errorf("primary caps = %v", s.Caps)
	}
	s = probeWithRole(t, func(m sqlmock.Sqlmock) { expectRole(t, m, 192100, "LOGICAL STANDBY", "boston_lsby") })
	if s.Has(CapPrimary) || IsStandby(s) || !s.Has(CapWriteCounters) || s.Reason(CapPrimary).Kind != dialects.Role {
		t.Errorf("logical standby caps = %v, %+v", s.Caps, s.Reason(CapPrimary))
	}
	// A role that cannot be read never fails the probe: it is unreadable.
	s = probeWithRole(t, func(m sqlmock.Sqlmock) {
		m.ExpectQuery(mocksql.SQL(t, Name, "database_role", 192100)).WillReturnError(&network.OracleError{ErrCode: 2003, ErrMsg: "ORA-02003: invalid USERENV parameter"})
	})
	if s.Has(CapPrimary) || IsStandby(s) || s.Reason(CapPrimary).Kind != dialects.Unreadable {
		t.Errorf("unreadable role: caps = %v, %+v", s.Caps, s.Reason(CapPrimary))
	}
	if _, probed := s.Caps[CapWriteCounters]; probed {
		t.Error("an unknown role says nothing about the write counters")
	}
}

// A standby's window end says what it does not wait for.
func TestSettleOnAStandby(t *testing.T) {
	s := dialects.Server{}
	s.Set(CapStandby, true, "")
	if w := (Dialect{}).Settle(context.Background(), nil, s, nil); len(w) != 1 || !strings.Contains(w[0], "Redo Apply") {
		t.Errorf("Settle = %v", w)
	}
}
