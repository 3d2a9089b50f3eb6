package sqlserver

import (
	"strings"
	"testing"

	ms "github.com/writeamp/writeamp/dialects/sqlserver"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
	"github.com/writeamp/writeamp/result"
)

// The timeline reads this database's log bytes flushed and write
// transactions, from rows padded as nchar(128) (Azure: named after the
// physical name), and says rows are not sampled and why.
func TestTimelineReadsLogAndCommits(t *testing.T) {
	for _, c := range []struct {
		vn   int
		inst string
	}{{ms.Version2017 + 3456, "kc"}, {ms.Version2019 + 4375, "kc"}, {ms.AzureVersionNum, azureGUID + "_1"}} {
		s := server(c.vn)
		series, notes := Timeline{}.Series(s, nil)
		if len(series) != 2 || series[0].Name != "log_bytes" || series[1].Name != "transactions_committed" || series[1].Exactness != result.Exact {
			t.Errorf("%d: series %+v", c.vn, series)
		}
		if len(notes) != 1 || !strings.Contains(notes[0], "rows not sampled") {
			t.Errorf("notes %q", notes)
		}
		db, mock := mocksql.New(t)
		mock.ExpectQuery(text(t, "timeline", s)).WillReturnRows(perfRows(
			[4]any{"SQLServer:Databases", "Log Bytes Flushed/sec", c.inst, int64(66584000)},
			[4]any{"SQLServer:Databases", "Write Transactions/sec", c.inst, int64(1502)}))
		conn, err := db.Conn(ctx())
		if err != nil {
			t.Fatal(err)
		}
		got, err := Timeline{}.Read(ctx(), conn, s, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got["log_bytes"] != 66584000 || got["transactions_committed"] != 1502 {
			t.Errorf("%d: read %v", c.vn, got)
		}
		if err := mock.ExpectationsWereMet(); err != nil {
			t.Error(err)
		}
	}
	if strings.Contains(text(t, "timeline", server(ms.Version2017+3456)), "physical_database_name") {
		t.Error("only 2019+ and Azure may reference sys.databases.physical_database_name")
	}
}

// On a readable secondary the write transactions would be a false zero:
// redo commits the primary's without a statement here.
func TestTimelineOnASecondary(t *testing.T) {
	series, notes := Timeline{}.Series(secondary(), nil)
	if len(series) != 1 || series[0].Name != "log_bytes" {
		t.Errorf("series %+v", series)
	}
	if len(notes) != 2 || !strings.Contains(notes[1], "write transactions not sampled: the database is a readable secondary") {
		t.Errorf("notes %q", notes)
	}
}
