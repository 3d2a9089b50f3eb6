package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/result"
)

// statementsSection cuts a rendered report down to its statements table and
// its foot, so the golden files hold that section alone.
func statementsSection(t *testing.T, out string) []byte {
	t.Helper()
	i := strings.Index(out, "Top statements by ")
	if i < 0 {
		t.Fatalf("no statements table in\n%s", out)
	}
	rest := out[strings.LastIndex(out[:i], "\n")+1:]
	if j := strings.Index(rest, "\nbasis:"); j >= 0 {
		rest = rest[:j]
	}
	return []byte(strings.TrimRight(rest, "\n") + "\n")
}

func metricPtr(v float64, ex result.Exactness, note string) *result.Metric {
	x := m(v, ex)
	x.Note = note
	return &x
}

// TestStatementsTablePredicted: the statements table shows explain's
// prediction beside each write's measured figures (HOT, entries per row, a
// partial index's bound), the prediction's comparison with the measured
// leaf inserts beneath (table-level where two statements wrote one table),
// a statement without prediction blank; and, for a view without
// per-statement log, the rows reconciliation and the section's notes.
func TestStatementsTablePredicted(t *testing.T) {
	t.Parallel()
	pg := result.Run{Variant: "wrapped", Statements: &result.Statements{View: "pg_stat_statements",
		LogBytes: metricPtr(30000, result.Derived, ""), Remainder: metricPtr(1200, result.Derived, "background work"),
		Notes: []string{"pg_stat_statements keeps no eviction count on this server"},
		Top: []result.Statement{
			{Text: "update st.b set v = v + $1 where id <= $2", Calls: m(1, result.Exact), Rows: m(777, result.Exact), LogBytes: m(20000, result.Exact),
				Predicted: &result.Predicted{Table: "st.b", HOT: "no", EntriesPerRow: 2, Indexes: []string{"b_pkey", "b_v"},
					Comparison: "measured leaf inserts: b_pkey 777 as predicted; b_v 777 as predicted; HOT updates 0 of 777 rows"}},
			{Text: "insert into st.a select g, $1 from generate_series($2, $3) g", Calls: m(1, result.Exact), Rows: m(1234, result.Exact), LogBytes: m(8000, result.Exact),
				Predicted: &result.Predicted{Table: "st.a", EntriesPerRow: 2, AtMost: true, Indexes: []string{"a_pkey", "a_part"},
					Comparison: "table-level: 2 listed write statements share st.a's per-index counts, compared with the sum of their predictions; measured leaf inserts: a_pkey 1244 as predicted"}},
			{Text: "update st.a set pad = $1 where id = $2", Calls: m(10, result.Exact), Rows: m(10, result.Exact), LogBytes: m(1500, result.Exact),
				Predicted: &result.Predicted{Table: "st.a", HOT: "possible", Comparison: "table-level: 2 listed write statements share st.a's per-index counts, compared with the sum of their predictions; measured leaf inserts: a_pkey 1244 as predicted"}},
			{Text: "select count(*) from st.a", Calls: m(3, result.Exact), Rows: m(3, result.Exact), LogBytes: m(0, result.Exact)},
		}}}
	my := result.Run{Variant: "wrapped", Statements: &result.Statements{View: "performance_schema.events_statements_summary_by_digest",
		Rows: metricPtr(2111, result.Derived, ""), RowsInScope: metricPtr(2115, result.Exact, ""), RowsRemainder: metricPtr(4, result.Derived, "triggers"),
		Top: []result.Statement{{Text: "INSERT INTO `a` SELECT `seq` , ? FROM `seq_1_to_1234`", Calls: m(1, result.Exact), Rows: m(1234, result.Exact),
			LogBytes: result.NA("v", "no per-statement log"), Predicted: &result.Predicted{Table: "d.a", EntriesPerRow: 1, Indexes: []string{"PRIMARY"}}}}}}
	for name, run := range map[string]result.Run{"statements_pg": pg, "statements_mariadb": my} {
		dialect := "postgres"
		if name == "statements_mariadb" {
			dialect = "mysql"
		}
		res := &result.Result{SchemaVersion: 1, Server: result.Server{Dialect: dialect}, Runs: []result.Run{run}}
		for _, f := range []string{"table", "markdown"} {
			var b bytes.Buffer
			if err := Render(&b, f, res, Options{}); err != nil {
				t.Fatal(err)
			}
			sec := statementsSection(t, b.String())
			golden(t, name+"."+f, sec)
			for _, want := range map[string][]string{
				"statements_pg":      {"not HOT, 2 entries/row", "≤2 entries/row", "HOT possible, 0 entries/row", "#1 predicted vs measured (st.b): measured leaf inserts: b_pkey 777 as predicted", "#3 predicted vs measured (st.a): table-level", "keeps no eviction count"},
				"statements_mariadb": {"1 entries/row", "rows affected sum to 2,111 (derived); the tables in scope wrote 2,115 rows (exact), the other 4 (derived): triggers"},
			}[name] {
				if !bytes.Contains(sec, []byte(want)) {
					t.Errorf("%s %s: no %q in\n%s", name, f, want, sec)
				}
			}
		}
	}
}
