package oracle

import (
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/collectors"
	ora "github.com/writeamp/writeamp/dialects/oracle"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
	"github.com/writeamp/writeamp/result"
)

var eventCols = []string{"event", "total_waits", "time_waited_micro"}

func TestSystemEventValues(t *testing.T) {
	db, mock := mocksql.New(t)
	s := server()
	mock.ExpectQuery(text(t, "v_system_event", s)).WillReturnRows(sqlmock.NewRows(eventCols).
		AddRow("enq: TX - index contention", 37, 52000).
		AddRow("log file sync", 16500, 9100000))
	cs, err := VSystemEvent{}.Collect(ctx(), db, s, collectors.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	if c := find(t, cs, collectors.DB, "", "waits.enq_tx_index_contention"); c.Value != 37 {
		t.Errorf("waits = %v", c.Value)
	}
	if c := find(t, cs, collectors.DB, "", "waits.enq_tx_index_contention_ms"); c.Value != 52 || c.Exactness != result.Exact {
		t.Errorf("waits ms = %+v", c)
	}
	if c := find(t, cs, collectors.DB, "", "waits.log_file_sync_ms"); c.Value != 9100 {
		t.Errorf("log file sync ms = %v", c.Value)
	}
}

func TestSystemEventUnderBasicAndPermission(t *testing.T) {
	db, mock := mocksql.New(t)
	s := server()
	s.SetProp(ora.PropStatisticsLevel, "BASIC")
	mock.ExpectQuery(text(t, "v_system_event", s)).WillReturnRows(sqlmock.NewRows(eventCols).AddRow("buffer busy waits", 5, 0))
	cs, err := VSystemEvent{}.Collect(ctx(), db, s, collectors.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	if c := find(t, cs, collectors.DB, "", "waits.buffer_busy_waits_ms"); c.Exactness != result.Approx || c.Note == "" {
		t.Errorf("untimed waits must say so: %+v", c)
	}
	db, mock = mocksql.New(t)
	mock.ExpectQuery(text(t, "v_system_event", s)).WillReturnError(ora942)
	_, err = VSystemEvent{}.Collect(ctx(), db, s, collectors.Scope{})
	wantPrivilege(t, err, "v_$system_event")
}
