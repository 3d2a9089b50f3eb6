package ciout

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/writeamp/writeamp/check/restore"
	"github.com/writeamp/writeamp/result"
)

// The table report leads with the verdict, as the markdown does, says it
// once, and fits the width it is given.
func TestTableReportLeadsWithTheVerdictAndFits(t *testing.T) {
	t.Parallel()
	o := outcome(t, "leaf_inserts/op<=+10%", "log_bytes/op<=+5%")
	for _, w := range []int{0, 80, 100, 120} {
		var out bytes.Buffer
		if err := render(&out, o, "table", w); err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(out.String(), "\n")
		if first != o.Headline() {
			t.Errorf("width %d: first line %q, want the verdict %q", w, first, o.Headline())
		}
		if n := strings.Count(out.String(), o.Headline()); n != 1 {
			t.Errorf("width %d: the verdict appears %d times", w, n)
		}
		for i, l := range strings.Split(out.String(), "\n") {
			if n := utf8.RuneCountInString(l); w > 0 && n > w {
				t.Errorf("width %d: line %d is %d wide: %q", w, i+1, n, l)
			}
		}
		if !strings.Contains(out.String(), "leaf_inserts/op<=+10%") || !strings.Contains(out.String(), "PASS") && !strings.Contains(out.String(), "FAIL") {
			t.Errorf("width %d: a verdict row is missing", w)
		}
	}
}

// /op per command on PostgreSQL, whose tables count rows: the command wrote
// no row to a measured table, the server is not said to count none.
func TestPerCommandSaysTheCommandWroteNoRow(t *testing.T) {
	t.Parallel()
	o := outcome(t, "log_bytes/op<=+5%")
	o.PerOp = "command"
	zero := result.New(0, result.Exact, "pg_stat_user_tables.n_tup_ins")
	for i := range o.Result.Runs {
		o.Result.Runs[i].Tables = []result.Object{{Name: "public.t", Metrics: map[string]result.Metric{result.RowsInserted.Name: zero}}}
	}
	var out bytes.Buffer
	if err := render(&out, o, "table", 0); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "/op is per command: the command wrote no row to a measured table") || strings.Contains(s, "counts no rows") {
		t.Errorf("%s", s[strings.Index(s, "/op is"):])
	}
	o.Result.Runs[1].Missing = []result.Missing{{Collector: "table_io_waits_summary_by_table", Lacks: []string{result.RowsInserted.Name}}}
	out.Reset()
	if err := render(&out, o, "table", 0); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "/op is per command: this server counts no rows per table") {
		t.Errorf("MariaDB without per-table counts: %s", out.String())
	}
}

// After the verdict come the budgets that decided it and why, then what
// they rest on (the static check, the restore), and only then the whole
// comparison: a reader of a PR comment or a CI log stops after a screen.
func TestBudgetsComeBeforeTheComparison(t *testing.T) {
	t.Parallel()
	o := outcome(t, "leaf_inserts/op<=+10%")
	o.Restore = &restore.Restoration{Method: restore.MethodClone, How: "measured on copies", Checked: true, Compared: 3}
	for _, format := range []string{"table", "markdown"} {
		var out bytes.Buffer
		if err := render(&out, o, format, 0); err != nil {
			t.Fatal(err)
		}
		s := out.String()
		at := func(what string) int {
			i := strings.Index(s, what)
			if i < 0 {
				t.Fatalf("%s: no %q in\n%s", format, what, s)
			}
			return i
		}
		verdict, budgets, static, restored, report := at(o.Headline()), at("leaf_inserts/op<=+10%"), at("static check"), at("restore: measured on copies"), at("refresh-token on PostgreSQL")
		if !(verdict < budgets && budgets < static && static < restored && restored < report) {
			t.Errorf("%s: verdict %d, budgets %d, static %d, restore %d, comparison %d: want them in that order", format, verdict, budgets, static, restored, report)
		}
	}
}
