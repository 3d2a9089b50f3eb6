package mysql

import (
	"context"
	"database/sql/driver"
	"strings"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/collectors"
	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
	"github.com/writeamp/writeamp/result"
)

// MySQL 8 (performance_schema on by default): rows per table from the table
// I/O summary, every base table listed (0 before its first use), its
// CREATE_TIME the identity; tables out of scope are left out. BIGINT
// UNSIGNED counts arrive as the driver's uint64 bytes, here as text.
func TestTableIOWaitsQuery(t *testing.T) {
	t.Parallel()
	db, m := mocksql.New(t)
	s := server(80036, my.CapTableIO)
	m.ExpectQuery(mocksql.SQL(t, my.Name, "table_io_waits_summary_by_table", s.VersionNum)).WithArgs("app", "app").
		WillReturnRows(sqlmock.NewRows([]string{"TABLE_SCHEMA", "TABLE_NAME", "CREATE_TIME", "COUNT_INSERT", "COUNT_UPDATE", "COUNT_DELETE"}).
			AddRow("app", "jobs", "2026-11-30 10:00:00", "300", "120", "30").
			AddRow("app", "audit", "2026-11-30 10:00:01", "0", "0", "0").
			AddRow("app", "other", "2026-11-30 10:00:02", "5", "0", "0"))
	cs, err := TableIOWaitsSummaryByTable{}.Collect(context.Background(), db, s, collectors.Scope{Schemas: []string{"app"}, Tables: []string{"jobs", "audit"}})
	if err != nil {
		t.Fatal(err)
	}
	got := byMetric(cs)
	if len(cs) != 6 || got["table:app.jobs:rows_updated"].Value != 120 || got["table:app.jobs:rows_deleted"].Value != 30 ||
		got["table:app.audit:rows_inserted"].Value != 0 || got["table:app.jobs:rows_inserted"].Identity != "2026-11-30 10:00:00" ||
		got["table:app.jobs:rows_inserted"].Exactness != result.Exact || !strings.Contains(got["table:app.jobs:rows_inserted"].Source, "COUNT_INSERT") {
		t.Errorf("counters %+v", got)
	}
	// TABLE_STATISTICS stays silent where performance_schema counts.
	if cs, err := (TableStatistics{}).Collect(context.Background(), db, server(1101119, my.CapTableIO, my.CapUserstat), collectors.Scope{}); cs != nil || err != nil {
		t.Errorf("TABLE_STATISTICS read beside performance_schema: %v %v", cs, err)
	}
}

// MariaDB 10.11 with userstat: one rows_written per table (ROWS_CHANGED);
// 11.5+: inserted, updated and deleted apart. Neither counter: the
// collector says why, with the settings that turn either on.
func TestTableStatisticsQuery(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		version int
		cols    []string
		row     []driver.Value
		metrics []string
	}{
		{1101119, []string{"TABLE_SCHEMA", "TABLE_NAME", "CREATE_TIME", "ROWS_CHANGED"}, []driver.Value{"app", "jobs", "2026-11-30 10:00:00", "450"}, []string{"rows_written"}},
		{1110502, []string{"TABLE_SCHEMA", "TABLE_NAME", "CREATE_TIME", "ROWS_INSERTED", "ROWS_UPDATED", "ROWS_DELETED"}, []driver.Value{"app", "jobs", "2026-11-30 10:00:00", "300", "120", "30"},
			[]string{"rows_inserted", "rows_updated", "rows_deleted"}},
	} {
		db, m := mocksql.New(t)
		s := server(c.version, my.CapUserstat)
		m.ExpectQuery(mocksql.SQL(t, my.Name, "table_statistics", s.VersionNum)).WithArgs("", "").
			WillReturnRows(sqlmock.NewRows(c.cols).AddRow(c.row...))
		cs, err := TableStatistics{}.Collect(context.Background(), db, s, collectors.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		if len(cs) != len(c.metrics) {
			t.Fatalf("%d: %+v", c.version, cs)
		}
		for i, mt := range c.metrics {
			if cs[i].Metric != mt || cs[i].Object != "app.jobs" || !strings.Contains(cs[i].Source, "TABLE_STATISTICS") {
				t.Errorf("%d: %+v", c.version, cs[i])
			}
		}
	}
	s := server(1101119)
	s.Set(my.CapTableIO, false, "performance_schema is off")
	s.Set(my.CapUserstat, false, "User Statistics are off: SET GLOBAL userstat = 1")
	err := TableIOWaitsSummaryByTable{}.Supports(s)
	if err == nil || !strings.Contains(err.Error(), "no rows written per table") || !strings.Contains(err.Error(), "SET GLOBAL userstat = 1") {
		t.Errorf("neither counter: %v", err)
	}
}
