package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/result"
)

func m(v float64, ex result.Exactness) result.Metric {
	return result.Metric{Value: &v, Exactness: ex, Source: "test"}
}

// TestRunTablesShowOperationsAndStatements: the log per operation (with its
// sum against the in-scope log) and the top statements appear in the
// table, markdown and html reports, figures and exactness included.
func TestRunTablesShowOperationsAndStatements(t *testing.T) {
	t.Parallel()
	ops := func(lb, recs, leaf float64) map[string]result.Metric {
		return map[string]result.Metric{"log_bytes": m(lb, result.Exact), "log_records": m(recs, result.Exact), "fpi_bytes": m(0, result.Exact), "leaf_inserts": m(leaf, result.Exact)}
	}
	run := result.Run{Variant: "baseline", Operations: map[string]int64{"refreshes": 10, "logins": 2}, Database: map[string]result.Metric{"log_bytes_in_scope": m(15000, result.Exact)},
		OperationCosts: &result.OperationCosts{Source: "writeamp's WAL decoder", LogBytes: m(15000, result.Exact), InScope: m(15000, result.Exact),
			Operations: []result.OperationCost{
				{Operation: "refresh", Count: 10, Transactions: 9, Metrics: ops(12100, 90, 36), Objects: []result.OperationObject{
					{Level: "index", Name: "s.idx_exp", Metrics: ops(8600, 40, 36)}, {Level: "table", Name: "s.user_session", Metrics: ops(3500, 50, 0)}}},
				{Operation: "login", Count: 2, Transactions: 2, Metrics: ops(2400, 20, 8)}},
			Unattributed: &result.OperationCost{Metrics: ops(500, 5, 0)}},
		Statements: &result.Statements{View: "pg_stat_statements", Observer: 4, LogBytes: func() *result.Metric { x := m(14000, result.Exact); return &x }(),
			Remainder: func() *result.Metric { x := m(1000, result.Derived); x.Note = "checkpoints"; return &x }(),
			Top:       []result.Statement{{Text: "UPDATE s.user_session SET last_session_refresh = $1 WHERE id = $2", Calls: m(9, result.Exact), Rows: m(9, result.Exact), LogBytes: m(12000, result.Exact)}}},
	}
	res := &result.Result{SchemaVersion: 1, Server: result.Server{Dialect: "postgres", Name: "PostgreSQL 15"}, Runs: []result.Run{run}}
	for _, f := range []string{"table", "markdown", "html"} {
		var b bytes.Buffer
		if err := Render(&b, f, res, Options{}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, want := range []string{"Log per operation · baseline", "refresh", "1.18 KiB", "8.40 KiB in 1 indexes", "(no operation)", "14.6 KiB",
			"Top statements by log bytes · baseline (pg_stat_statements)", "UPDATE s.user_session SET last_session_refresh", "11.7 KiB",
			"left out: 4 entries of writeamp"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: no %q in\n%s", f, want, out)
			}
		}
	}
}
