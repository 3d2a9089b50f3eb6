package oracle

import (
	"strings"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	ora "github.com/writeamp/writeamp/dialects/oracle"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
	"github.com/writeamp/writeamp/result"
)

// The timeline reads 'redo size' and 'user commits' from the instance's or
// the PDB's statistics view, and says rows are not sampled and why.
func TestTimelineReadsRedoAndCommits(t *testing.T) {
	for _, conID := range []string{"0", "3"} {
		s := server()
		s.SetProp(ora.PropConID, conID)
		block, view := "timeline", "V$SYSSTAT"
		if conID == "3" {
			block, view = "timeline_con", "V$CON_SYSSTAT"
		}
		series, notes := Timeline{}.Series(s, nil)
		if len(series) != 2 || series[0].Name != "log_bytes" || !strings.HasPrefix(series[0].Source, view+" 'redo size'") || series[1].Exactness != result.Approx {
			t.Errorf("CON_ID %s: series %+v", conID, series)
		}
		if len(notes) != 1 || !strings.Contains(notes[0], "rows not sampled") {
			t.Errorf("notes %q", notes)
		}
		db, mock := mocksql.New(t)
		// NUMBER columns, names as V$STATNAME spells them
		mock.ExpectQuery(text(t, block, s)).WillReturnRows(sqlmock.NewRows([]string{"NAME", "VALUE"}).AddRow("redo size", int64(8817848)).AddRow("user commits", int64(1502)))
		conn, err := db.Conn(ctx())
		if err != nil {
			t.Fatal(err)
		}
		got, err := Timeline{}.Read(ctx(), conn, s, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got["log_bytes"] != 8817848 || got["transactions_committed"] != 1502 || len(got) != 2 {
			t.Errorf("CON_ID %s: read %v", conID, got)
		}
		if err := mock.ExpectationsWereMet(); err != nil {
			t.Error(err)
		}
	}
	if !strings.Contains(text(t, "timeline_con", server()), "FROM v$con_sysstat") {
		t.Error("the PDB block must read V$CON_SYSSTAT")
	}
}

// On a physical standby the timeline draws nothing rather than a flat zero.
func TestTimelineNotOnAStandby(t *testing.T) {
	series, notes := Timeline{}.Series(standbyServer(), nil)
	if series != nil || len(notes) != 1 || !strings.Contains(notes[0], "physical standby") {
		t.Errorf("series %+v notes %q", series, notes)
	}
}
