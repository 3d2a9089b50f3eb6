package sqlserver

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
)

var roleCols = []string{"in_group", "is_in_standby", "updateability", "view_any_definition"}

// expectRole is the hadr_role row as the server sends it: the CASE an int
// (int64 through the driver), is_in_standby a bit, Updateability nvarchar,
// HAS_PERMS_BY_NAME an int or NULL.
func expectRole(t *testing.T, mock sqlmock.Sqlmock, vn int, inGroup int64, standby bool, updateability string, anyDefinition any) {
	t.Helper()
	mock.ExpectQuery(mocksql.SQL(t, Name, "hadr_role", vn)).WillReturnRows(sqlmock.NewRows(roleCols).AddRow(inGroup, standby, updateability, anyDefinition))
}

func probeAs(t *testing.T, edition int, product string, inGroup int64, standby bool, updateability string, anyDefinition any) dialects.Server {
	t.Helper()
	db, mock := mocksql.New(t)
	vn := 1604135
	if edition == engineAzureSQLDatabase {
		vn = AzureVersionNum
	}
	mock.ExpectQuery(mocksql.SQL(t, Name, "probe", 0)).WillReturnRows(sqlmock.NewRows(probeCols).
		AddRow(product, edition, "SQL1", "kc", "wa_login", "wa", int64(1), int64(1), int64(0), time.Now(), "FULL", nil, nil))
	expectRole(t, mock, vn, inGroup, standby, updateability, anyDefinition)
	mock.ExpectQuery(mocksql.SQL(t, Name, "permissions", vn)).WillReturnRows(sqlmock.NewRows(permCols).AddRow(int64(1), int64(1), int64(1)))
	s, err := Dialect{}.Probe(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestProbeReplicaRoles: the copy the connection is on, from sys.databases
// and DATABASEPROPERTYEX only; every "no" carries a typed reason.
func TestProbeReplicaRoles(t *testing.T) {
	for _, c := range []struct {
		name               string
		inGroup            int64
		standby            bool
		updateability      string
		primary, secondary bool
	}{
		{"standalone", 0, false, "READ_WRITE", false, false},
		{"primary", 1, false, "READ_WRITE", true, false},
		{"readable secondary", 1, false, "READ_ONLY", false, true},
		{"log-shipping standby", 0, true, "READ_ONLY", false, true},
		{"read-only, no copy", 0, false, "READ_ONLY", false, false},
	} {
		s := probeAs(t, 3, "16.0.4135.4", c.inGroup, c.standby, c.updateability, int64(1))
		if s.Has(CapAGPrimary) != c.primary || s.Has(CapAGSecondary) != c.secondary || s.Has(CapRowCounters) == c.secondary {
			t.Errorf("%s: caps %v", c.name, s.Caps)
		}
		_, recorded := s.Caps[CapAGPrimary]
		switch {
		case c.secondary && s.Reason(CapAGPrimary).Kind != dialects.Role:
			t.Errorf("%s: no primary: %+v", c.name, s.Reason(CapAGPrimary))
		case !c.primary && !c.secondary && recorded:
			t.Errorf("%s: a standalone database records no role, nothing for doctor to list as missing", c.name)
		}
		if c.secondary {
			if r := s.Reason(CapRowCounters); r.Kind != dialects.Role || !strings.Contains(r.Text, "redo") || r.Fix != "" {
				t.Errorf("%s: row counters reason %+v", c.name, r)
			}
			if s.Has(CapCheckpoint) || s.Reason(CapCheckpoint).Kind != dialects.Role {
				t.Errorf("%s: a secondary gets no CHECKPOINT: %+v", c.name, s.Reason(CapCheckpoint))
			}
		} else if !s.Has(CapCheckpoint) {
			t.Errorf("%s: CHECKPOINT denied", c.name)
		}
		if r := s.Reason(CapResourceStats); s.Has(CapResourceStats) || r.Kind != dialects.Version {
			t.Errorf("%s: resource stats on a boxed server: %+v", c.name, r)
		}
	}
	s := probeAs(t, 3, "16.0.4135.4", 1, false, "READ_WRITE", int64(0))
	if r := s.Reason(CapViewAnyDefinition); s.Has(CapViewAnyDefinition) || r.Kind != dialects.Privilege || r.Fix != "USE master; GRANT VIEW ANY DEFINITION TO [wa_login]" {
		t.Errorf("VIEW ANY DEFINITION: %+v", r)
	}
}

// TestProbeAzureReadReplica: Azure SQL Database's read-only replica is a
// secondary (never a false zero), and its copies are not readable there.
func TestProbeAzureReadReplica(t *testing.T) {
	s := probeAs(t, engineAzureSQLDatabase, "12.0.2000.8", 1, false, "READ_ONLY", nil)
	if !s.Has(CapAGSecondary) || s.Has(CapRowCounters) || s.Has(CapAGPrimary) || s.Reason(CapAGPrimary).Kind != dialects.Version {
		t.Fatalf("caps %v, primary %+v", s.Caps, s.Reason(CapAGPrimary))
	}
	if !s.Has(CapResourceStats) {
		t.Error("Azure SQL Database has sys.dm_db_resource_stats")
	}
	s = probeAs(t, engineAzureSQLDatabase, "12.0.2000.8", 1, false, "READ_WRITE", nil)
	if s.Has(CapAGSecondary) || !s.Has(CapRowCounters) || s.Has(CapAGPrimary) {
		t.Fatalf("Azure primary: caps %v", s.Caps)
	}
}

var tailCols = []string{"replica", "log_send_queue_size", "redo_queue_size"}

// TestSettleWaitsForTheCopies: after the workload a primary waits until its
// secondaries were sent and redid its log (bigint KB, NULL unreported), and
// names one still behind at the bound.
func TestSettleWaitsForTheCopies(t *testing.T) {
	s := dialects.Server{Dialect: Name, VersionNum: Version2022}
	s.Set(CapAGPrimary, true, "")
	s.Set(CapViewServerState, true, "")
	db, mock := mocksql.New(t)
	mock.ExpectQuery(mocksql.SQL(t, Name, "hadr_tail", s.VersionNum)).WillReturnRows(sqlmock.NewRows(tailCols).AddRow("SQL2", int64(12), int64(0)))
	mock.ExpectQuery(mocksql.SQL(t, Name, "hadr_tail", s.VersionNum)).WillReturnRows(sqlmock.NewRows(tailCols).AddRow("SQL2", int64(0), nil))
	if w := (Dialect{}).Settle(context.Background(), db, s, nil); len(w) != 1 || !strings.Contains(w[0], "ghost cleanup") {
		t.Fatalf("caught up: %v", w)
	}

	defer func(b time.Duration) { CopiesBound = b }(CopiesBound)
	CopiesBound = 0
	db, mock = mocksql.New(t)
	mock.ExpectQuery(mocksql.SQL(t, Name, "hadr_tail", s.VersionNum)).WillReturnRows(sqlmock.NewRows(tailCols).AddRow("SQL2", int64(0), int64(40)))
	w := Dialect{}.Settle(context.Background(), db, s, nil)
	if len(w) != 2 || !strings.Contains(w[0], "SQL2 (0 KB not sent, 40 KB not redone)") {
		t.Fatalf("behind: %v", w)
	}
}
