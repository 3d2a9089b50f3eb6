package sqlserver

import (
	"strings"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/collectors"
	ms "github.com/writeamp/writeamp/dialects/sqlserver"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
)

var waitCols = []string{"wait_type", "waiting_tasks_count", "wait_time_ms"}

func TestWaitStatsInstance(t *testing.T) {
	db, mock := mocksql.New(t)
	s := server(ms.Version2022 + 4135)
	mock.ExpectQuery(text(t, "sys_dm_os_wait_stats", s)).WillReturnRows(sqlmock.NewRows(waitCols).
		AddRow("PAGELATCH_EX", 4200, 3100).
		AddRow("WRITELOG", 16500, 9000).
		AddRow("RBIO_RG_STORAGE", 3, 40))
	cs, err := SysDmOsWaitStats{}.Collect(ctx(), db, s, collectors.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	if c := find(t, cs, collectors.DB, "", "waits.pagelatch_ex"); c.Value != 4200 || !strings.Contains(c.Source, "sys.dm_os_wait_stats") {
		t.Errorf("waits.pagelatch_ex = %+v", c)
	}
	if c := find(t, cs, collectors.DB, "", "waits.pagelatch_ex_ms"); c.Value != 3100 {
		t.Errorf("waits.pagelatch_ex_ms = %v", c.Value)
	}
	if c := find(t, cs, collectors.DB, "", "waits.writelog_ms"); c.Value != 9000 {
		t.Errorf("waits.writelog_ms = %v", c.Value)
	}
	if c := find(t, cs, collectors.DB, "", "waits.rbio_rg_storage"); c.Value != 3 {
		t.Errorf("waits.rbio_rg_storage = %v", c.Value)
	}
}

func TestWaitStatsAzureReadsTheDatabaseView(t *testing.T) {
	db, mock := mocksql.New(t)
	s := azure()
	mock.ExpectQuery(text(t, "sys_dm_db_wait_stats", s)).WillReturnRows(sqlmock.NewRows(waitCols).
		AddRow("LOG_RATE_GOVERNOR", 12, 640))
	cs, err := SysDmOsWaitStats{}.Collect(ctx(), db, s, collectors.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	c := find(t, cs, collectors.DB, "", "waits.log_rate_governor_ms")
	if c.Value != 640 || !strings.Contains(c.Source, "sys.dm_db_wait_stats") || !strings.Contains(c.Source, "this database") {
		t.Errorf("waits.log_rate_governor_ms = %+v", c)
	}
	// On Azure the permission is VIEW DATABASE STATE in the database, with no
	// USE, on every service objective (Basic and S0 included).
	s.SetProp(ms.PropServiceObjective, "Basic")
	s.Set(ms.CapInstanceDMVs, false, "no")
	if err := (SysDmOsWaitStats{}).Supports(s); err != nil {
		t.Fatalf("sys.dm_db_wait_stats needs no admin on Basic: %v", err)
	}
	s.Set(ms.CapViewDatabaseStateFull, false, "no")
	wantPrivilege(t, SysDmOsWaitStats{}.Supports(s), "VIEW DATABASE STATE", "GRANT VIEW DATABASE STATE TO [wa]")
}

func TestWaitStatsClearedIsAReset(t *testing.T) {
	s := server(ms.Version2019)
	read := func(n int64) []collectors.Counter {
		db, mock := mocksql.New(t)
		mock.ExpectQuery(text(t, "sys_dm_os_wait_stats", s)).WillReturnRows(sqlmock.NewRows(waitCols).AddRow("WRITELOG", n, n*2))
		cs, err := SysDmOsWaitStats{}.Collect(ctx(), db, s, collectors.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	d, _ := collectors.Diff(snap(s, read(500)), snap(s, read(20))) // DBCC SQLPERF('sys.dm_os_wait_stats', CLEAR)
	k := collectors.Key{Level: collectors.DB, Metric: "waits.writelog_ms"}
	if m := d.Values[k]; m.OK() || !hasKey(d.Resets, k) {
		t.Fatalf("cleared waits must be a reset, got %+v", m)
	}
}

func TestWaitStatsPermission(t *testing.T) {
	db, mock := mocksql.New(t)
	s := server(ms.Version2019 + 4375)
	mock.ExpectQuery(text(t, "sys_dm_os_wait_stats", s)).WillReturnError(permissionDenied300)
	_, err := SysDmOsWaitStats{}.Collect(ctx(), db, s, collectors.Scope{})
	wantPrivilege(t, err, "VIEW SERVER STATE", "USE master; GRANT VIEW SERVER STATE TO [wa_login]")
}
