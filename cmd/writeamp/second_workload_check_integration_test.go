package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/budget"
	"github.com/writeamp/writeamp/check"
	"github.com/writeamp/writeamp/internal/testing/testenv"
	"github.com/writeamp/writeamp/internal/testing/workloadtest/demo"
	"github.com/writeamp/writeamp/reports"
	"github.com/writeamp/writeamp/result"
	"github.com/writeamp/writeamp/workloads"
)

// TestASecondWorkloadGetsCheck: check measures a migration on the demo
// workload, found in the registry, as it does on refresh-token; check names
// no workload package. The plain variant's updates are all HOT; the
// migration indexes the updated column, so after it none is and the new
// index gets one entry per update.
func TestASecondWorkloadGetsCheck(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, "WRITEAMP_TEST_PG_DSN")
	wl, err := workloads.New(demo.Name)
	if err != nil {
		t.Fatal(err)
	}
	wl.(*demo.Workload).Updates = 200
	mig := filepath.Join(t.TempDir(), "index_v.sql")
	if err := os.WriteFile(mig, []byte("CREATE INDEX counter_v ON counter (v);\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	req := check.Request{Workload: wl, Variant: "plain", Migrations: []string{mig}, Concurrency: 1, Repeat: 1,
		Budgets: []string{"index_entries/op<=+0%"}}
	g, err := req.Gate()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tg, err := connect(ctx, sourceOf(dsn), embedOpts{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if g.Window, err = tg.measuredWindow(io.Discard, true); err != nil {
		t.Fatal(err)
	}
	out, err := g.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if out.Result == nil || out.Result.Workload.Name != demo.Name || len(out.Result.Runs) != 2 {
		t.Fatalf("result %+v", out.Result)
	}
	before, after := out.Result.Runs[0], out.Result.Runs[1]
	if hot := before.Table("counter").Metrics["hot_updates"].V(); hot != 200 || before.Index("counter_v") != nil {
		t.Errorf("before: %v HOT updates of 200, index counter_v %+v", hot, before.Index("counter_v"))
	}
	ix := after.Index("counter_v")
	if ix == nil || ix.Metrics["leaf_inserts"].V() < 200 || after.Table("counter").Metrics["hot_updates"].V() != 0 {
		t.Errorf("after: index counter_v %+v, HOT %v; want >= 200 leaf inserts, no HOT", ix, after.Table("counter").Metrics["hot_updates"].V())
	}
	if out.Restore == nil || !out.Restore.OK() || !out.Restore.Checked {
		t.Errorf("restore %+v", out.Restore)
	}
	// the demo's claim, registered by its package, rendered by the reports
	var md bytes.Buffer
	if err := reports.Render(&md, "markdown", out.Result, reports.Options{}); err != nil {
		t.Fatal(err)
	}
	if cl := reports.FromResult(out.Result).Claims; len(cl) != 1 || cl[0].Verdict != result.Held || !strings.Contains(strings.ToLower(md.String()), "claims of the demo workload") {
		t.Errorf("demo claims %+v; markdown:\n%s", cl, md.String())
	}
	failed := false
	for _, v := range out.Verdicts {
		failed = failed || v.Object == "counter" && v.Status == budget.Fail // the table holds its new index
	}
	if !failed {
		t.Errorf("a budget of no more index entries on the table holds against the new index: %+v", out.Verdicts)
	}
}
