package collectors

import (
	"strings"
	"testing"

	"github.com/writeamp/writeamp/result"
)

func stmts(evict float64, reset string, rows ...StatementRow) *Statements {
	return &Statements{View: "v", Sources: map[string]string{"calls": "calls", "rows": "rows"}, Rows: rows, Evictions: &evict, Reset: reset}
}

func row(key, since string, calls, rows float64) StatementRow {
	return StatementRow{Key: key, Text: key, Since: since, Values: map[string]float64{"calls": calls, "rows": rows}}
}

func TestDiffStatements(t *testing.T) {
	t.Parallel()
	before := stmts(3, "r0", row("a", "", 5, 50), row("b", "", 2, 2), row("c", "s1", 1, 1))
	after := stmts(3, "r0", row("a", "", 7, 80), row("b", "", 2, 2), row("c", "s2", 1, 9), row("d", "", 1, 4))
	got, warns := diffStatements(before, after)
	by := map[string]StatementDelta{}
	for _, d := range got {
		by[d.Key] = d
	}
	if _, ok := by["b"]; ok || len(warns) != 0 {
		t.Errorf("b did not run in the window; warnings %v", warns)
	}
	if m := by["a"].Metrics["rows"]; m.V() != 30 || m.Exactness != result.Exact {
		t.Errorf("a: %+v, want 30 exact", m)
	}
	if m := by["c"].Metrics["rows"]; m.OK() {
		t.Errorf("c was recreated (since changed): %+v must be unavailable", m)
	}
	if m := by["d"].Metrics["rows"]; m.V() != 4 || !strings.Contains(m.Note, "created during the window") {
		t.Errorf("d: %+v", m)
	}
	// Evictions in the window: every figure approximate, and said.
	after.Evictions = ptr(5)
	got, warns = diffStatements(before, after)
	if len(warns) != 1 || !strings.Contains(warns[0], "dropped 2") {
		t.Errorf("evictions not reported: %v", warns)
	}
	for _, d := range got {
		if m := d.Metrics["rows"]; m.OK() && m.Exactness != result.Approx {
			t.Errorf("%s: %s after evictions, want approx", d.Key, m.Exactness)
		}
	}
	// A reset of the whole view: nothing is listed as a figure.
	after.Reset = "r1"
	if got, warns = diffStatements(before, after); got != nil || len(warns) == 0 {
		t.Errorf("a reset view gave %v, %v", got, warns)
	}
}

// TestDiffStatementsWithoutEvictionCount: a view with no eviction count
// (pg_stat_statements 1.8) shows an eviction only as an entry of the first
// reading missing from the second; then every figure is approximate and
// the warning says the window saw evictions. Without a vanished entry the
// figures stay as counted (the statements section notes the blind spot).
func TestDiffStatementsWithoutEvictionCount(t *testing.T) {
	t.Parallel()
	before := &Statements{View: "pg_stat_statements", Rows: []StatementRow{row("a", "", 5, 50), row("b", "", 2, 2)}}
	after := &Statements{View: "pg_stat_statements", Rows: []StatementRow{row("a", "", 7, 80), row("b", "", 2, 2)}}
	got, warns := diffStatements(before, after)
	if len(warns) != 0 || len(got) != 1 || got[0].Metrics["rows"].Exactness != result.Exact {
		t.Errorf("nothing vanished: %+v, warnings %v", got, warns)
	}
	after.Rows = []StatementRow{row("a", "", 7, 80), row("c", "", 1, 3)}
	got, warns = diffStatements(before, after)
	if len(warns) != 1 || !strings.Contains(warns[0], "saw evictions") || !strings.Contains(warns[0], "1 entries read before it are gone") {
		t.Errorf("a vanished entry not reported as an eviction: %v", warns)
	}
	for _, d := range got {
		if m := d.Metrics["rows"]; m.Exactness != result.Approx || !strings.Contains(m.Note, "saw evictions") {
			t.Errorf("%s: %+v after a vanished entry, want approx with the reason", d.Key, m)
		}
	}
}
