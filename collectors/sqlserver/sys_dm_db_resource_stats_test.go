package sqlserver

import (
	"strings"
	"testing"
	"time"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	ms "github.com/writeamp/writeamp/dialects/sqlserver"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
	"github.com/writeamp/writeamp/result"
)

var statsCols = []string{"n", "max_log_write_percent", "avg_log_write_percent", "first_end_time", "last_end_time"}

func azureWithStats() dialects.Server {
	s := azure()
	s.Set(ms.CapResourceStats, true, "")
	return s
}

func markAt(t *testing.T, s dialects.Server, at time.Time) *collectors.Snapshot {
	t.Helper()
	db, mock := mocksql.New(t)
	// SYSUTCDATETIME() is datetime2(7): a time.Time through the driver.
	mock.ExpectQuery(text(t, "server_utc", s)).WillReturnRows(sqlmock.NewRows([]string{""}).AddRow(at))
	marks, err := SysDmDbResourceStatsMark{}.Marks(ctx(), db, s)
	if err != nil {
		t.Fatal(err)
	}
	return &collectors.Snapshot{Server: s, Marks: marks}
}

// TestResourceStatsOverTheWindow: the max and mean of avg_log_write_percent
// over the 15-second rows overlapping the window, as shares (approx), with
// what the rows do not cover; no row is unavailable, never 0.
func TestResourceStatsOverTheWindow(t *testing.T) {
	s := azureWithStats()
	start := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	end := start.Add(2 * time.Minute)
	before, after := markAt(t, s, start), markAt(t, s, end)

	db, mock := mocksql.New(t)
	// COUNT_BIG is bigint; MAX of decimal(5,2) and AVG (decimal(38,6)) arrive
	// from go-mssqldb as the decimal's text, []byte; end_time is datetime.
	mock.ExpectQuery(text(t, "sys_dm_db_resource_stats", s)).WithArgs(start, end).WillReturnRows(sqlmock.NewRows(statsCols).
		AddRow(int64(8), []byte("87.50"), []byte("41.250000"), start.Add(15*time.Second), end.Add(-5*time.Second)))
	cs, err := SysDmDbResourceStats{}.CollectInterval(ctx(), db, s, before, after)
	if err != nil {
		t.Fatal(err)
	}
	mx := find(t, cs, collectors.DB, "", "log_rate_limit_share_max")
	if mx.Value != 0.875 || mx.Exactness != result.Approx || !strings.Contains(mx.Source, "the 8 15-second intervals") || !strings.Contains(mx.Note, "last 5s") {
		t.Errorf("max = %+v", mx)
	}
	if avg := find(t, cs, collectors.DB, "", "log_rate_limit_share_avg"); avg.Value != 0.4125 || avg.Exactness != result.Approx {
		t.Errorf("avg = %+v", avg)
	}

	db, mock = mocksql.New(t)
	mock.ExpectQuery(text(t, "sys_dm_db_resource_stats", s)).WithArgs(start, end).WillReturnRows(sqlmock.NewRows(statsCols).
		AddRow(int64(0), nil, nil, nil, nil))
	cs, err = SysDmDbResourceStats{}.CollectInterval(ctx(), db, s, before, after)
	if err != nil {
		t.Fatal(err)
	}
	if c := find(t, cs, collectors.DB, "", "log_rate_limit_share_max"); c.Exactness != result.Unavailable || !strings.Contains(c.Note, "no 15-second interval") {
		t.Errorf("no rows = %+v", c)
	}
}

func TestResourceStatsCoverage(t *testing.T) {
	start := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	// The view kept rows from 10:20 on only (an hour's window, or a failover).
	note := coverage(start, start.Add(70*time.Minute), start.Add(20*time.Minute), start.Add(70*time.Minute))
	if !strings.Contains(note, "first 19m45s are not covered") {
		t.Errorf("note = %q", note)
	}
}

// TestResourceStatsOnlyOnAzureSQLDatabase: elsewhere a typed "not here",
// never an error or a statement; on Azure the view's permission.
func TestResourceStatsOnlyOnAzureSQLDatabase(t *testing.T) {
	s := server(ms.Version2022)
	s.Deny(ms.CapResourceStats, dialects.Reason{Kind: dialects.Version, Text: "sys.dm_db_resource_stats is Azure SQL Database's"})
	err := SysDmDbResourceStats{}.Supports(s)
	wantUnsupported(t, err)
	if r := dialects.ReasonOf(err); r.Kind != dialects.Version || len(dialects.Lacking(err)) != 2 {
		t.Errorf("reason %+v lacks %v", r, dialects.Lacking(err))
	}
	db, _ := mocksql.New(t)
	if m, err := (SysDmDbResourceStatsMark{}).Marks(ctx(), db, s); m != nil || err != nil {
		t.Errorf("marks off Azure = %v, %v", m, err)
	}
	a := azureWithStats()
	a.Set(ms.CapViewDatabaseStateFull, false, "no")
	wantPrivilege(t, SysDmDbResourceStats{}.Supports(a), "VIEW DATABASE STATE", "GRANT VIEW DATABASE STATE TO [wa]")
	if err := (SysDmDbResourceStats{}).Supports(azureWithStats()); err != nil {
		t.Errorf("azure: %v", err)
	}
}
