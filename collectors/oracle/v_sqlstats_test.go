package oracle

import (
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
	"github.com/writeamp/writeamp/result"
)

// Rows as go-ora returns V$SQLSTATS: the key built from SQL_ID (13
// characters) and PLAN_HASH_VALUE, SQL_TEXT as VARCHAR2(1000), NUMBERs as
// integers.
var sqlstatsCols = []string{"key", "sql_text", "executions", "rows_processed", "physical_write_bytes", "elapsed_time"}

func sqlstatsRows(calls, rows int64) *sqlmock.Rows {
	return sqlmock.NewRows(sqlstatsCols).
		AddRow("9babjv8yq8ru3/2949544139", "UPDATE OFFLINE_USER_SESSION SET LAST_SESSION_REFRESH = :1 WHERE USER_SESSION_ID = :2", calls, rows, 8192*calls, 2000*calls)
}

func TestSqlstatsDiffPerStatement(t *testing.T) {
	db, mock := mocksql.New(t)
	s := server()
	mock.ExpectQuery(text(t, "v_sqlstats", s)).WillReturnRows(sqlstatsRows(4, 4))
	mock.ExpectQuery(text(t, "v_sqlstats", s)).WillReturnRows(sqlstatsRows(9, 9))
	before, err := VSqlstats{}.Statements(ctx(), db, s)
	if err != nil {
		t.Fatal(err)
	}
	after, err := VSqlstats{}.Statements(ctx(), db, s)
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
	if m["calls"].V() != 5 || m["rows"].V() != 5 || m["physical_write_bytes"].V() != 5*8192 || m["exec_ms"].V() != 10 || m["rows"].Exactness != result.Exact {
		t.Errorf("metrics %+v", m)
	}
}

func TestSqlstatsDenied(t *testing.T) {
	db, mock := mocksql.New(t)
	s := server()
	mock.ExpectQuery(text(t, "v_sqlstats", s)).WillReturnError(ora942)
	_, err := VSqlstats{}.Statements(ctx(), db, s)
	wantPrivilege(t, err, "v_$sqlstats")
}
