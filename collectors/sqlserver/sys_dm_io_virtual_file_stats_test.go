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

var fileCols = []string{"file_id", "name", "num_of_writes", "num_of_bytes_written", "io_stall_write_ms"}

func TestVirtualFileStatsLogBytes(t *testing.T) {
	db, mock := mocksql.New(t)
	s := server(ms.Version2019 + 4375)
	mock.ExpectQuery(text(t, "sys_dm_io_virtual_file_stats", s)).WillReturnRows(sqlmock.NewRows(fileCols).
		AddRow(2, "kc_log", 1000, 68182016, 250).
		AddRow(3, "kc_log2", 10, 40960, 5))
	cs, err := SysDmIoVirtualFileStats{}.Collect(ctx(), db, s, collectors.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	lb := find(t, cs, collectors.DB, "", "log_bytes")
	if lb.Value != 68222976 || lb.Exactness != result.Exact || !strings.Contains(lb.Source, "num_of_bytes_written") {
		t.Errorf("log_bytes = %+v", lb)
	}
	if !strings.Contains(lb.Note, "sector") {
		t.Errorf("log_bytes must say they are sector-padded physical bytes: %q", lb.Note)
	}
	if w := find(t, cs, collectors.DB, "", "log_writes"); w.Value != 1010 {
		t.Errorf("log_writes = %v", w.Value)
	}
	if lb.Identity != "log_files=2,3 started=2026-01-02T03:04:05Z" {
		t.Errorf("identity = %q", lb.Identity)
	}
}

func TestVirtualFileStatsResetOnRestartOrNewFile(t *testing.T) {
	s := server(ms.Version2019)
	read := func(bytes int64, files ...int) []collectors.Counter {
		db, mock := mocksql.New(t)
		rows := sqlmock.NewRows(fileCols)
		for _, f := range files {
			rows.AddRow(f, "log", 1, bytes, 0)
		}
		mock.ExpectQuery(text(t, "sys_dm_io_virtual_file_stats", s)).WillReturnRows(rows)
		cs, err := SysDmIoVirtualFileStats{}.Collect(ctx(), db, s, collectors.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	k := collectors.Key{Level: collectors.DB, Metric: "log_bytes"}
	d, _ := collectors.Diff(snap(s, read(5000, 2)), snap(s, read(1000, 2)))
	if m := d.Values[k]; m.OK() || !hasKey(d.Resets, k) {
		t.Fatalf("a lower byte count must be a reset, got %+v", m)
	}
	d, _ = collectors.Diff(snap(s, read(5000, 2)), snap(s, read(9000, 2, 3)))
	if m := d.Values[k]; m.OK() || !strings.Contains(m.Note, "recreated") {
		t.Fatalf("an added log file changes what the sum means, got %+v", m)
	}
}

func TestVirtualFileStatsErrors(t *testing.T) {
	db, mock := mocksql.New(t)
	s := server(ms.Version2022 + 4135)
	mock.ExpectQuery(text(t, "sys_dm_io_virtual_file_stats", s)).WillReturnError(permissionDenied300)
	_, err := SysDmIoVirtualFileStats{}.Collect(ctx(), db, s, collectors.Scope{})
	wantPrivilege(t, err, "VIEW SERVER PERFORMANCE STATE", "USE master; GRANT VIEW SERVER PERFORMANCE STATE TO [wa_login]")

	db, mock = mocksql.New(t)
	mock.ExpectQuery(text(t, "sys_dm_io_virtual_file_stats", s)).WillReturnRows(sqlmock.NewRows(fileCols))
	if _, err := (SysDmIoVirtualFileStats{}).Collect(ctx(), db, s, collectors.Scope{}); err == nil || !strings.Contains(err.Error(), "no LOG file") {
		t.Fatalf("want a no-log-file error, got %v", err)
	}

	s2019 := server(ms.Version2019)
	s2019.Set(ms.CapViewServerState, false, "no")
	wantPrivilege(t, SysDmIoVirtualFileStats{}.Supports(s2019), "VIEW SERVER STATE", "GRANT VIEW SERVER STATE TO [wa_login]")
}
