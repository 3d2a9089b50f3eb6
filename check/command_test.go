package check

import (
	"strings"
	"testing"

	"github.com/writeamp/writeamp/result"
)

// /op budgets of a wrapped command say why they divide by the command: the
// collector that would have counted rows per table says so by what it
// lacks, not by how its reason is worded.
func TestPerOpNoteNamesTheCollectorLackingRowCounts(t *testing.T) {
	r := &result.Run{Missing: []result.Missing{
		{Collector: "innodb_metrics", Reason: "no rows written per table in these words, but it lacks page splits only", Lacks: []string{"page_splits"}},
		{Collector: "table_io_waits_summary_by_table", Reason: "performance_schema is off", Fix: "performance_schema = ON",
			Lacks: []string{result.RowsInserted.Name, result.RowsUpdated.Name, result.RowsDeleted.Name}},
	}}
	if got := perOpNote(r); !strings.Contains(got, "(performance_schema is off)") {
		t.Errorf("perOpNote = %q", got)
	}
	r.Missing = r.Missing[:1]
	// A server that counts rows per table (PostgreSQL) and a command that
	// wrote none: the note says so, not that the server counts none.
	if got := perOpNote(r); !strings.Contains(got, "the command wrote no row to a measured table") || strings.Contains(got, "counts no rows") {
		t.Errorf("a reason's words chose the collector: %q", got)
	}
}
