package oracle

import (
	"strings"
	"testing"
	"time"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
)

var sessionEventCols = []string{"SID", "S.SID||','||S.SERIAL#", "EVENT", "TOTAL_WAITS", "TIME_WAITED_MICRO"}

// The workload sessions' waits are their V$SESSION_EVENT totals' growth
// between the first and the last poll, summed per event; go-ora returns
// NUMBER columns holding integers as int64. The program is bound twice
// (:1 IS NULL OR PROGRAM = :2).
func TestSessionEventSumsTheWorkloadSessionsGrowth(t *testing.T) {
	db, mock := mocksql.New(t)
	s := server()
	q := text(t, "v_session_event", s)
	mock.ExpectQuery(q).WithArgs("writeamp", "writeamp").WillReturnRows(sqlmock.NewRows(sessionEventCols).
		AddRow(int64(131), "131,40211", "log file sync", int64(2), int64(1800)))
	mock.ExpectQuery(q).WithArgs("writeamp", "writeamp").WillReturnRows(sqlmock.NewRows(sessionEventCols).
		AddRow(int64(131), "131,40211", "log file sync", int64(1502), int64(913800)).
		AddRow(int64(131), "131,40211", "enq: TX - index contention", int64(37), int64(52000)).
		AddRow(int64(262), "262,11873", "buffer busy waits", int64(9), int64(4100)))
	sampling, err := VSessionEvent{}.Start(ctx(), db, s, collectors.SampleTarget{ApplicationName: "writeamp", Every: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sampling.Stop()
	if err != nil {
		t.Fatal(err)
	}
	for m, want := range map[string]float64{
		"session_waits.log_file_sync": 1500, "session_waits.log_file_sync_ms": 912,
		"session_waits.enq_tx_index_contention": 37, "session_waits.enq_tx_index_contention_ms": 52,
		"session_waits.buffer_busy_waits": 9, "session_waits.buffer_busy_waits_ms": 4.1,
	} {
		c := find(t, cs, collectors.DB, "", m)
		if c.Value != want || c.Exactness != "exact" || !strings.Contains(c.Source, "V$SESSION_EVENT") || !strings.Contains(c.Source, "PROGRAM 'writeamp'") {
			t.Errorf("%s = %+v, want %v", m, c, want)
		}
	}
	if !strings.Contains(q, "SYS_CONTEXT('USERENV', 'SID')") || !strings.Contains(q, "s.type = 'USER'") {
		t.Errorf("the sampler's own and background sessions are left out: %s", q)
	}
}

func TestSessionEventPermission(t *testing.T) {
	db, mock := mocksql.New(t)
	s := server()
	mock.ExpectQuery(text(t, "v_session_event", s)).WithArgs(nil, nil).WillReturnError(ora942)
	_, err := VSessionEvent{}.Start(ctx(), db, s, collectors.SampleTarget{})
	wantPrivilege(t, err, "v_$session_event")
	if _, err := (VSessionEvent{}).Start(ctx(), db, oracle11, collectors.SampleTarget{}); err == nil {
		t.Error("Oracle 11 is refused")
	}
}
