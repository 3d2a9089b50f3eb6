package capacity

import (
	"strings"
	"testing"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/result"
)

func TestFPIAssumptionSaysWhichWindow(t *testing.T) {
	for cp, want := range map[string]string{"": "right after a CHECKPOINT", "before": "the worst case", "steady": "steady-state window", "none": "no CHECKPOINT before it"} {
		res := &result.Result{Workload: result.Workload{Params: map[string]any{"checkpoint": cp}}}
		got := fpiAssumption(res, "coarse 40.0%")
		if !strings.Contains(got, want) || !strings.Contains(got, "checkpoint_timeout and max_wal_size are unknown") || !strings.Contains(got, "coarse 40.0%") {
			t.Errorf("%q: %s", cp, got)
		}
	}
}

// The plan names the checkpoint settings the result recorded for the
// measured server, not PostgreSQL's defaults; a result without them (older
// files) says they are unknown rather than guessing.
func TestFPIAssumptionNamesTheRecordedSettings(t *testing.T) {
	res := &result.Result{Server: result.Server{Settings: map[string]string{"checkpoint_timeout": "15min", "max_wal_size": "4GB"}},
		Workload: result.Workload{Params: map[string]any{"checkpoint": "steady"}}}
	got := fpiAssumption(res, "coarse 4.0%")
	if !strings.Contains(got, "checkpoint_timeout 15min and max_wal_size 4GB assumed (the measured server's") || strings.Contains(got, " 5min") || strings.Contains(got, "unknown") {
		t.Errorf("recorded settings: %s", got)
	}
	res.Server.Settings = map[string]string{"checkpoint_timeout": "15min"}
	if got := fpiAssumption(res, "coarse 4.0%"); !strings.Contains(got, "are unknown") {
		t.Errorf("half the settings: %s", got)
	}
}

// A warm-up repeated until its log rate settled says so, per variant, and
// one that did not settle says the window is not yet the steady state.
func TestFPIAssumptionSaysHowTheWarmUpEnded(t *testing.T) {
	res := &result.Result{Workload: result.Workload{Params: map[string]any{"checkpoint": "steady"}}, Runs: []result.Run{
		{Variant: "baseline", Database: map[string]result.Metric{"warmup_rounds": result.New(3, result.Exact, ""), "warmup_settled": result.New(1, result.Exact, "")}},
		{Variant: "coarse", Database: map[string]result.Metric{"warmup_rounds": result.New(20, result.Exact, ""), "warmup_settled": result.New(0, result.Exact, "")}},
	}}
	got := fpiAssumption(res, "baseline 1.0%, coarse 2.0%")
	if !strings.Contains(got, "warm-up repeated until its log rate per operation settled (baseline 3 rounds, settled; coarse 20 rounds, not settled: the window is not yet the steady state)") {
		t.Errorf("rounds: %s", got)
	}
	res.Runs = res.Runs[:0]
	if got := fpiAssumption(res, "x"); strings.Contains(got, "repeated") {
		t.Errorf("a fixed warm-up: %s", got)
	}
}

// TestFPIAssumptionAdvisesTheCommandsOwnFlags: a plan scaled from a window
// right after a CHECKPOINT says so with the full-page images' share, and
// points to the steady state with flags the command that wrote the result
// has: measure's --checkpoint steady (no --warmup, which measure lacks),
// run's --warmup N --checkpoint steady; a diff says whether its snapshots
// checkpointed.
func TestFPIAssumptionAdvisesTheCommandsOwnFlags(t *testing.T) {
	measured := &result.Result{Workload: result.Workload{Name: "command", Params: map[string]any{"command": "psql", "checkpoint": "before"}}}
	got := fpiAssumption(measured, "psql 88.0%")
	if !strings.Contains(got, "scaled from a window that starts right after a CHECKPOINT: full-page images are psql 88.0% of its WAL") ||
		!strings.HasSuffix(got, "steady state writes fewer: measure with --checkpoint steady") || strings.Contains(got, "--warmup") {
		t.Errorf("measure, before: %s", got)
	}
	// A measure result written before measure had the flag: the window
	// always opened after a CHECKPOINT.
	measured.Workload.Params = map[string]any{"command": "psql"}
	if got := fpiAssumption(measured, "x"); !strings.Contains(got, "right after a CHECKPOINT") || !strings.Contains(got, "measure with --checkpoint steady") {
		t.Errorf("measure, no mode recorded: %s", got)
	}
	measured.Workload.Params["checkpoint"] = "steady"
	if got := fpiAssumption(measured, "x"); !strings.Contains(got, "a warm-up run of the command") {
		t.Errorf("measure, steady: %s", got)
	}
	run := &result.Result{Workload: result.Workload{Name: "refresh-token", Params: map[string]any{"checkpoint": "before"}}}
	if got := fpiAssumption(run, "x"); !strings.HasSuffix(got, "run with --warmup N --checkpoint steady") {
		t.Errorf("run: %s", got)
	}
	diff := &result.Result{Workload: result.Workload{Name: "diff"}, Runs: []result.Run{{}}}
	if got := fpiAssumption(diff, "x"); !strings.Contains(got, "no CHECKPOINT before it") {
		t.Errorf("diff without --checkpoint: %s", got)
	}
	diff.Runs[0].Warnings = []string{dialects.AfterCheckpoint + " (here 1 of the 2 log bytes, 50%, were full-page images)"}
	if got := fpiAssumption(diff, "x"); !strings.Contains(got, "right after a CHECKPOINT") || !strings.Contains(got, "without --checkpoint") {
		t.Errorf("diff with --checkpoint: %s", got)
	}
}
