package advise

import (
	"bytes"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/result"
)

// The html page is self-contained, findings first, escapes what names and
// SQL hold, and shows a figure the server does not count as ·.
func TestHTMLIsSelfContainedFindingsFirstAndEscaped(t *testing.T) {
	t.Parallel()
	s := func(v float64) *float64 { return &v }
	rep := &Report{PerOp: "row written", Workload: "command", Server: "PostgreSQL 15"}
	rep.Diagnosis.Noise = s(0.012)
	rep.Diagnosis.Tables = []TableProfile{{Table: "pgbench_accounts", RowsUpdated: 2000, HotRatio: s(0), LogBytesPerOp: 2400}}
	rep.Diagnosis.Indexes = []IndexProfile{
		{Index: "acc_abalance", Table: "pgbench_accounts", EntriesPerOp: s(0.75), Scans: s(0), Why: []string{"UPDATE sets abalance"}},
		{Index: "k_1", Table: "sbtest1"}, // InnoDB without performance_schema: nothing counted
	}
	rep.Recommendations = []Recommendation{{
		Object: "acc_abalance", Kind: UpdatedKey, Change: `drop index "<script>x</script>"`, Saving: s(0.426),
		Summary:   "drop index acc_abalance saves 42.6% WAL per row written",
		Migration: Migration{Up: "DROP INDEX acc_abalance;\n", Down: "CREATE INDEX acc_abalance ON pgbench_accounts (abalance) WHERE abalance > 0 AND 1 < 2;\n"},
		Measured: map[string]Metric{
			"log_bytes/op": {Before: s(2458), After: s(1434), Exactness: result.Exact, Source: "WAL decoder", Unit: "bytes"},
			"hot_ratio":    {Before: s(0), After: s(1), Exactness: result.Exact, Source: "pg_stat_user_tables", Unit: "fraction"},
		},
		Risks: []string{"reads of the index: 0 in the window"},
	}}
	Rank(rep.Recommendations)
	rep.Skipped = []Recommendation{{Change: "fillfactor 70 on t", Error: "lock timeout"}}
	var b bytes.Buffer
	if err := Render(&b, rep, "html", 0); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<script", "http://", "https://", " src="} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q: not escaped or not self-contained", bad)
		}
	}
	for _, want := range []string{
		"<title>writeamp advise · command on PostgreSQL 15</title>",
		"<li>1. drop index acc_abalance saves 42.6% WAL per row written</li>",
		"&lt;script&gt;x&lt;/script&gt;",
		"AND 1 &lt; 2;",
		"<td>2.4 KiB</td><td>1.4 KiB</td>",
		"exact: WAL decoder",
		"<td>0.0%</td><td>100.0%</td>",
		"fillfactor 70 on t: lock timeout",
		"differed by 1.2%",
		"<td>sbtest1.k_1</td><td>·</td><td>·</td><td>·</td>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if f, r, d := strings.Index(page, `id="findings"`), strings.Index(page, `id="r1"`), strings.Index(page, `id="diagnosis"`); !(f >= 0 && f < r && r < d) {
		t.Errorf("order findings %d, recommendation %d, diagnosis %d: want findings first", f, r, d)
	}
}
