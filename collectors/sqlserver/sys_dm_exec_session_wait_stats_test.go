package sqlserver

import (
	"strings"
	"testing"
	"time"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/collectors"
	ms "github.com/writeamp/writeamp/dialects/sqlserver"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
)

var sessionWaitCols = []string{"session_id", "session", "wait_type", "waiting_tasks_count", "wait_time_ms"}

// The workload sessions' waits are what their counters grew by between the
// first and the last poll: a session already open counts from its reading
// at the start, one that opened in the window from zero; the query names
// writeamp's program and leaves the sampler's own session out.
func TestSessionWaitStatsSumsTheWorkloadSessionsGrowth(t *testing.T) {
	db, mock := mocksql.New(t)
	s := server(ms.Version2019 + 4375)
	q := text(t, "sys_dm_exec_session_wait_stats", s)
	// login_time is datetime, style 126 drops a zero millisecond part.
	mock.ExpectQuery(q).WithArgs("writeamp").WillReturnRows(sqlmock.NewRows(sessionWaitCols).
		AddRow(int16(57), "57@2026-01-02T03:04:05.123", "PAGELATCH_EX", int64(10), int64(4)).
		AddRow(int16(57), "57@2026-01-02T03:04:05.123", "WRITELOG", int64(100), int64(90)))
	mock.ExpectQuery(q).WithArgs("writeamp").WillReturnRows(sqlmock.NewRows(sessionWaitCols).
		AddRow(int16(57), "57@2026-01-02T03:04:05.123", "PAGELATCH_EX", int64(4210), int64(3104)).
		AddRow(int16(57), "57@2026-01-02T03:04:05.123", "WRITELOG", int64(16600), int64(9090)).
		AddRow(int16(58), "58@2026-01-02T03:04:06", "PAGELATCH_EX", int64(800), int64(500)).
		AddRow(int16(58), "58@2026-01-02T03:04:06", "LCK_M_U", int64(3), int64(41)))
	sampling, err := SysDmExecSessionWaitStats{}.Start(ctx(), db, s, collectors.SampleTarget{ApplicationName: "writeamp", Every: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sampling.Stop()
	if err != nil {
		t.Fatal(err)
	}
	for m, want := range map[string]float64{
		"session_waits.pagelatch_ex": 4200 + 800, "session_waits.pagelatch_ex_ms": 3100 + 500,
		"session_waits.writelog": 16500, "session_waits.writelog_ms": 9000,
		"session_waits.lck_m_u": 3, "session_waits.lck_m_u_ms": 41,
	} {
		c := find(t, cs, collectors.DB, "", m)
		if c.Value != want || c.Exactness != "exact" || !c.Interval || !strings.Contains(c.Source, "sys.dm_exec_session_wait_stats (program_name 'writeamp')") || !strings.Contains(c.Source, "2 workload sessions") {
			t.Errorf("%s = %+v, want %v", m, c, want)
		}
	}
	if strings.Contains(q, "sys.dm_os_wait_stats") || !strings.Contains(q, "@@SPID") || !strings.Contains(q, "LCK[_]M[_]%") {
		t.Errorf("query: %s", q)
	}
}

// With the runner naming its workers' sessions, every user session is
// read (no program filter) and only those are counted, from their reading
// at the start: here session 60 is someone else's.
func TestSessionWaitStatsCountsTheRunnersSessions(t *testing.T) {
	db, mock := mocksql.New(t)
	s := server(ms.Version2022 + 4135)
	q := text(t, "sys_dm_exec_session_wait_stats", s)
	mock.ExpectQuery(q).WithArgs("").WillReturnRows(sqlmock.NewRows(sessionWaitCols).
		AddRow(int16(57), "57@2026-01-02T03:04:05.123", "WRITELOG", int64(100), int64(90)).
		AddRow(int16(60), "60@2026-01-02T03:00:00", "WRITELOG", int64(5), int64(5)))
	mock.ExpectQuery(q).WithArgs("").WillReturnRows(sqlmock.NewRows(sessionWaitCols).
		AddRow(int16(57), "57@2026-01-02T03:04:05.123", "WRITELOG", int64(160), int64(120)).
		AddRow(int16(60), "60@2026-01-02T03:00:00", "WRITELOG", int64(9005), int64(7005)))
	ours := func(id string) (string, bool) { return "refresh", id == "57" }
	sampling, err := SysDmExecSessionWaitStats{}.Start(ctx(), db, s, collectors.SampleTarget{ApplicationName: "writeamp", Sessions: ours, Every: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sampling.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if c := find(t, cs, collectors.DB, "", "session_waits.writelog"); c.Value != 60 || !strings.Contains(c.Source, "the workload's sessions") || !strings.Contains(c.Source, "1 workload sessions") {
		t.Errorf("only session 57's growth: %+v", c)
	}
}

// Without VIEW SERVER STATE the view shows only the sampler's own session:
// refused up front, with the GRANT, instead of reporting no waits.
func TestSessionWaitStatsNeedsTheServerPermission(t *testing.T) {
	s := server(ms.Version2019 + 4375)
	s.Set(ms.CapViewServerState, false, "no")
	wantPrivilege(t, SysDmExecSessionWaitStats{}.Supports(s), "VIEW SERVER STATE", "USE master; GRANT VIEW SERVER STATE TO [wa_login]")
	s = server(ms.Version2022 + 4135)
	s.Set(ms.CapViewServerState, false, "no")
	wantPrivilege(t, SysDmExecSessionWaitStats{}.Supports(s), "VIEW SERVER PERFORMANCE STATE", "USE master; GRANT VIEW SERVER PERFORMANCE STATE TO [wa_login]")
	if _, err := (SysDmExecSessionWaitStats{}).Start(ctx(), nil, s, collectors.SampleTarget{}); err == nil {
		t.Error("Start must refuse too")
	}
}

// PAGEIOLATCH_* (every mode) and PAGELATCH_UP are read with the rest.
func TestWaitStatsReadsPageIOLatches(t *testing.T) {
	db, mock := mocksql.New(t)
	s := server(ms.Version2019 + 4375)
	q := text(t, "sys_dm_os_wait_stats", s)
	if !strings.Contains(q, "N'PAGEIOLATCH[_]%'") || !strings.Contains(q, "N'PAGELATCH_UP'") {
		t.Fatalf("query: %s", q)
	}
	mock.ExpectQuery(q).WillReturnRows(sqlmock.NewRows(waitCols).AddRow("PAGEIOLATCH_SH", int64(77), int64(912)).AddRow("PAGEIOLATCH_EX", int64(5), int64(60)))
	cs, err := SysDmOsWaitStats{}.Collect(ctx(), db, s, collectors.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	if c := find(t, cs, collectors.DB, "", "waits.pageiolatch_sh_ms"); c.Value != 912 {
		t.Errorf("%+v", c)
	}
}
