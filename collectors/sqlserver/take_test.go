package sqlserver

import (
	"strings"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/collectors"
	ms "github.com/writeamp/writeamp/dialects/sqlserver"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
)

// TestTakeSnapshot runs the whole set the way measure does: one transaction,
// rolled back, every collector in order, a denied one recorded with its GRANT
// while the others still run.
func TestTakeSnapshot(t *testing.T) {
	db, mock := mocksql.New(t)
	s := server(ms.Version2019 + 4375)
	mock.ExpectBegin()
	mock.ExpectQuery(text(t, "fn_dblog_end_lsn", s)).WillReturnRows(sqlmock.NewRows([]string{"lsn"}).AddRow("0000002a:000000f0:0001"))
	mock.ExpectQuery(text(t, "sys_indexes", s)).WillReturnRows(sqlmock.NewRows([]string{"schema", "table", "index", "object_id", "index_id", "type_desc", "is_unique", "has_filter", "filter_definition", "columns"}).
		AddRow(sch, "offline_user_session", "constraint_offl_us_ses_pk2", 101, 1, "CLUSTERED", true, false, nil, "user_session_id, offline_flag"))
	mock.ExpectQuery(text(t, "sys_dm_db_index_operational_stats", s)).WillReturnRows(opRows(15000, 7005))
	mock.ExpectQuery(text(t, "sys_dm_io_virtual_file_stats", s)).WillReturnRows(sqlmock.NewRows(fileCols).AddRow(2, "kc_log", 10, 8192, 1))
	mock.ExpectQuery(text(t, "sys_dm_os_performance_counters", s)).WillReturnError(permissionDenied300)
	mock.ExpectQuery(text(t, "sys_dm_os_wait_stats", s)).WillReturnRows(sqlmock.NewRows(waitCols).AddRow("WRITELOG", 5, 7))
	mock.ExpectQuery(text(t, "sys_dm_exec_query_stats", s)).WillReturnRows(queryStatsRows(3, 30))
	mock.ExpectRollback()

	snap, err := NewSet().Take(ctx(), db, s, scope)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Marks[MarkLogEnd] != "0000002a:000000f0:0001" {
		t.Errorf("marks = %v", snap.Marks)
	}
	if len(snap.Objects) != 2 {
		t.Errorf("objects = %+v", snap.Objects)
	}
	if len(snap.Missing) != 1 || snap.Missing[0].Collector != "sys_dm_os_performance_counters" || !strings.Contains(snap.Missing[0].Fix, "GRANT VIEW SERVER STATE") {
		t.Errorf("missing = %+v", snap.Missing)
	}
	if snap.Statements == nil || len(snap.Statements.Rows) != 1 {
		t.Errorf("statements = %+v", snap.Statements)
	}
	find(t, snap.Counters, collectors.DB, "", "waits.writelog")
	find(t, snap.Counters, collectors.DB, "", "log_bytes")
	find(t, snap.Counters, collectors.Index, sch+".idx_user_session_expiration_last_refresh", "leaf_inserts")
}
