package sqlserver

import (
	"strings"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/collectors"
	ms "github.com/writeamp/writeamp/dialects/sqlserver"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
	"github.com/writeamp/writeamp/result"
)

// Rows as SQL Server returns them: the key and creation_time as varchar
// (CONVERT style 2 is upper-case hex without 0x, style 126 ISO 8601), the
// statement as nvarchar cut from its batch, the counts as bigint.
var queryStatsCols = []string{"key", "text", "creation_time", "execution_count", "total_rows", "total_logical_writes", "total_elapsed_time"}

const qsKey = "0200000093C4A51E5A6B0D2B36F2B30D27E9F3D6F6C2E1B20000000000000000000000000000000000000000/54/0600050093C4A51E10C1B0C39801000001000000000000000000000000000000000000000000000000000000"

func queryStatsRows(calls, rows int64) *sqlmock.Rows {
	return sqlmock.NewRows(queryStatsCols).
		AddRow(qsKey, "UPDATE dbo.offline_user_session SET last_session_refresh = @p1 WHERE user_session_id = @p2", "2026-12-02T03:10:44.217", calls, rows, 2*rows, 1500*calls)
}

func TestQueryStatsDiffPerStatement(t *testing.T) {
	db, mock := mocksql.New(t)
	s := server(ms.Version2022 + 4135)
	mock.ExpectQuery(text(t, "sys_dm_exec_query_stats", s)).WillReturnRows(queryStatsRows(10, 10))
	mock.ExpectQuery(text(t, "sys_dm_exec_query_stats", s)).WillReturnRows(queryStatsRows(25, 25))
	before, err := SysDmExecQueryStats{}.Statements(ctx(), db, s)
	if err != nil {
		t.Fatal(err)
	}
	after, err := SysDmExecQueryStats{}.Statements(ctx(), db, s)
	if err != nil {
		t.Fatal(err)
	}
	d, err := collectors.Diff(&collectors.Snapshot{Server: s, Statements: before}, &collectors.Snapshot{Server: s, Statements: after})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Statements) != 1 {
		t.Fatalf("statements %+v", d.Statements)
	}
	m := d.Statements[0].Metrics
	if m["calls"].V() != 15 || m["rows"].V() != 15 || m["logical_writes"].V() != 30 || m["exec_ms"].V() != 22.5 || m["rows"].Exactness != result.Exact {
		t.Errorf("metrics %+v", m)
	}
	if m["rows"].Source != "sys.dm_exec_query_stats.total_rows" {
		t.Errorf("source %q", m["rows"].Source)
	}
}

func TestQueryStatsDenied(t *testing.T) {
	db, mock := mocksql.New(t)
	s := server(ms.Version2019 + 4375)
	mock.ExpectQuery(text(t, "sys_dm_exec_query_stats", s)).WillReturnError(permissionDenied300)
	if _, err := (SysDmExecQueryStats{}).Statements(ctx(), db, s); err == nil || !strings.Contains(err.Error(), "VIEW SERVER STATE") {
		t.Errorf("want the privilege and its GRANT, got %v", err)
	}
}
