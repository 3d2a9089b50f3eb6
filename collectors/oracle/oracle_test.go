package oracle

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/DATA-DOG/go-sqlmock"
	"github.com/sijms/go-ora/v2/network"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	ora "github.com/writeamp/writeamp/dialects/oracle"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
	"github.com/writeamp/writeamp/result"
)

const own = "WRITEAMP_RT_1_BASELINE"

var scope = collectors.Scope{Schemas: []string{"writeamp_rt_1_baseline"}, Tables: []string{"offline_user_session"}}

func server() dialects.Server {
	s := dialects.Server{Dialect: ora.Name, Version: "19.21.0.0.0", VersionNum: 192100, Database: "FREEPDB1", User: "WA",
		StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	s.Set(ora.CapStatisticsLevel, true, "")
	s.SetProp(ora.PropStatisticsLevel, "TYPICAL")
	s.Set(ora.CapPrimary, true, "")
	s.Set(ora.CapWriteCounters, true, "")
	return s
}

var oracle11 = dialects.Server{Dialect: ora.Name, Version: "11.2.0.4.0", VersionNum: 110204}

func text(t testing.TB, name string, s dialects.Server) string {
	return mocksql.SQL(t, ora.Name, name, s.VersionNum)
}
func ctx() context.Context { return context.Background() }

func find(t *testing.T, cs []collectors.Counter, level collectors.Level, obj, metric string) collectors.Counter {
	t.Helper()
	for _, c := range cs {
		if c.Level == level && c.Object == obj && c.Metric == metric {
			return c
		}
	}
	t.Fatalf("no counter %s:%s:%s", level, obj, metric)
	return collectors.Counter{}
}

func snap(s dialects.Server, cs []collectors.Counter) *collectors.Snapshot {
	return &collectors.Snapshot{Server: s, Counters: cs}
}

func hasKey(ks []collectors.Key, k collectors.Key) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

var (
	ora942  = &network.OracleError{ErrCode: 942, ErrMsg: "ORA-00942: table or view does not exist"}
	ora1031 = &network.OracleError{ErrCode: 1031, ErrMsg: "ORA-01031: insufficient privileges"}
)

func wantPrivilege(t *testing.T, err error, view string) {
	t.Helper()
	var pe *dialects.PrivilegeError
	if !errors.As(err, &pe) {
		t.Fatalf("want *dialects.PrivilegeError, got %T %v", err, err)
	}
	if !strings.Contains(pe.Privilege, "SELECT_CATALOG_ROLE") || !strings.Contains(pe.Grant, "GRANT SELECT_CATALOG_ROLE TO \"WA\"") ||
		!strings.Contains(pe.Grant, "GRANT SELECT ON sys."+view+" TO \"WA\"") {
		t.Fatalf("privilege error does not name the grants: %+v", pe)
	}
}

func TestEveryCollectorRefusesOracle11(t *testing.T) {
	for _, c := range NewSet().Sources {
		if err := c.Supports(oracle11); !errors.Is(err, dialects.ErrUnsupported) {
			t.Errorf("%s: want ErrUnsupported for 11.2, got %v", c.Name(), err)
		}
		if err := c.Supports(server()); err != nil {
			t.Errorf("%s refuses 19c: %v", c.Name(), err)
		}
	}
}

func TestOwnerArg(t *testing.T) {
	if got := ownerArg(collectors.Scope{Schemas: []string{"a_b", "Cd"}}); got != ",A_B,CD," {
		t.Errorf("ownerArg = %q", got)
	}
	if got := ownerArg(collectors.Scope{}); got != "" {
		t.Errorf("no schemas must bind NULL (empty string in Oracle), got %q", got)
	}
	if slug("enq: TX - index contention") != "enq_tx_index_contention" || slug("log file sync") != "log_file_sync" {
		t.Error("slug")
	}
}

// TestTakeSnapshotReadOnly: the set opens a plain transaction (go-ora refuses
// TxOptions.ReadOnly), makes it READ ONLY on the server, and rolls back.
func TestTakeSnapshotReadOnly(t *testing.T) {
	db, mock := mocksql.New(t)
	s := server()
	owners := ownerArg(scope)
	mock.ExpectBegin()
	mock.ExpectExec(text(t, "snapshot_read_only", s)).WillReturnResult(sqlmock.NewResult(0, 0))
	mock.ExpectQuery(text(t, "all_objects", s)).WithArgs(owners, owners).WillReturnRows(sqlmock.NewRows(objCols).
		AddRow(own, "OFFLINE_USER_SESSION", "TABLE", nil, nil, nil, nil, 73001))
	mock.ExpectQuery(text(t, "v_segstat_name", s)).WillReturnError(ora942)
	mock.ExpectQuery(text(t, "v_segment_statistics", s)).WithArgs(owners, owners).WillReturnError(ora942)
	mock.ExpectQuery(text(t, "v_sysstat", s)).WillReturnRows(sqlmock.NewRows([]string{"name", "value"}).AddRow("redo size", 123456))
	mock.ExpectQuery(text(t, "v_system_event", s)).WillReturnError(ora1031)
	mock.ExpectQuery(text(t, "v_sqlstats", s)).WillReturnRows(sqlstatsRows(4, 40))
	// The primary's archive marks; V$RECOVERY_PROGRESS is read on a standby only.
	mock.ExpectQuery(text(t, "v_archived_log_recid", s)).WillReturnRows(sqlmock.NewRows([]string{"recid"}).AddRow("4711"))
	mock.ExpectQuery(text(t, "v_archive_dest_status", s)).WillReturnRows(destRows().AddRow("1", "LOG_ARCHIVE_DEST_1", "VALID", "LOCAL"))
	mock.ExpectRollback()
	sn, err := NewSet().Take(ctx(), db, s, scope)
	if err != nil {
		t.Fatal(err)
	}
	if len(sn.Objects) != 1 || len(sn.Missing) != 2 {
		t.Fatalf("objects %+v missing %+v", sn.Objects, sn.Missing)
	}
	if !strings.Contains(sn.Missing[0].Fix, "v_$segment_statistics") || !strings.Contains(sn.Missing[1].Fix, "v_$system_event") {
		t.Errorf("missing fixes = %+v", sn.Missing)
	}
	if c := find(t, sn.Counters, collectors.DB, "", "log_bytes"); c.Value != 123456 || c.Exactness != result.Exact {
		t.Errorf("log_bytes = %+v", c)
	}
	if sn.Marks[markRecid] != "4711" || sn.Marks[markDest+"1"] != "LOCAL\tVALID\tLOG_ARCHIVE_DEST_1" {
		t.Errorf("marks = %v", sn.Marks)
	}
}
