package sqlserver

import (
	"strings"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/collectors"
	ms "github.com/writeamp/writeamp/dialects/sqlserver"
	"github.com/writeamp/writeamp/result"
)

var perfCols = []string{"object_name", "counter_name", "instance_name", "cntr_value"}

func TestPerformanceCountersPerVersion(t *testing.T) {
	older, newer := server(ms.Version2017+3456), server(ms.Version2019+4375)
	if text("sys_dm_os_performance_counters", older) == text("sys_dm_os_performance_counters", newer) {
		t.Fatal("2017 and 2019 should get different query variants")
	}
	if !strings.Contains(text("sys_dm_os_performance_counters", newer), "physical_database_name") ||
		strings.Contains(text("sys_dm_os_performance_counters", older), "physical_database_name") {
		t.Fatal("only 2019+ (and Azure) may reference sys.databases.physical_database_name")
	}
	for _, s := range []struct {
		srv  string
		vn   int
		inst string
	}{{"2017", older.VersionNum, "kc"}, {"2019", newer.VersionNum, "kc"}, {"azure", ms.AzureVersionNum, "2F6C5A1E-0B5E-4E0A-9C7E-1A2B3C4D5E6F"}} {
		t.Run(s.srv, func(t *testing.T) {
			db, mock := mockDB(t)
			srv := server(s.vn)
			mock.ExpectQuery(text("sys_dm_os_performance_counters", srv)).WillReturnRows(sqlmock.NewRows(perfCols).
				AddRow("SQLServer:Databases", "Log Bytes Flushed/sec", s.inst, 66584000).
				AddRow("SQLServer:Databases", "Log Flushes/sec", s.inst, 16500).
				AddRow("SQLServer:Access Methods", "Page Splits/sec", "", 812))
			cs, err := SysDmOsPerformanceCounters{}.Collect(ctx(), db, srv, collectors.Scope{})
			if err != nil {
				t.Fatal(err)
			}
			if c := find(t, cs, collectors.DB, "", "log_bytes_flushed"); c.Value != 66584000 || c.Exactness != result.Exact {
				t.Errorf("log_bytes_flushed = %+v", c)
			}
			if c := find(t, cs, collectors.DB, "", "log_flushes"); c.Value != 16500 {
				t.Errorf("log_flushes = %v", c.Value)
			}
			ps := find(t, cs, collectors.DB, "", "page_splits")
			if ps.Value != 812 || ps.Exactness != result.Approx || !strings.Contains(ps.Source, "whole instance") {
				t.Errorf("page_splits = %+v", ps)
			}
		})
	}
}

func TestPerformanceCountersResetAndPermission(t *testing.T) {
	s := server(ms.Version2019)
	read := func(v int64) []collectors.Counter {
		db, mock := mockDB(t)
		mock.ExpectQuery(text("sys_dm_os_performance_counters", s)).WillReturnRows(sqlmock.NewRows(perfCols).
			AddRow("MSSQL$KC:Databases", "Log Flushes/sec", "kc", v))
		cs, err := SysDmOsPerformanceCounters{}.Collect(ctx(), db, s, collectors.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	k := collectors.Key{Level: collectors.DB, Metric: "log_flushes"}
	d, _ := collectors.Diff(snap(s, read(900)), snap(s, read(1000)))
	if m := d.Values[k]; m.V() != 100 {
		t.Errorf("delta = %v", m.V())
	}
	d, _ = collectors.Diff(snap(s, read(900)), snap(s, read(10)))
	if m := d.Values[k]; m.OK() || !hasKey(d.Resets, k) {
		t.Errorf("a lower value is a reset, got %+v", m)
	}

	db, mock := mockDB(t)
	mock.ExpectQuery(text("sys_dm_os_performance_counters", s)).WillReturnError(permissionDenied300)
	_, err := SysDmOsPerformanceCounters{}.Collect(ctx(), db, s, collectors.Scope{})
	wantPrivilege(t, err, "VIEW SERVER STATE", "GRANT VIEW SERVER STATE TO [wa_login]")
}
