package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/internal/testenv"
	"github.com/writeamp/writeamp/result"
)

// A preloaded, warmed-up window without a CHECKPOINT (--checkpoint steady)
// writes far fewer full-page images than the same workload's window right
// after one (--checkpoint before, today's default), each says which it is,
// and plan names the window it multiplies.
func TestSteadyStateWindowHasFewerFullPageImages(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, "WRITEAMP_TEST_PG_DSN")
	fpi := map[string]float64{}
	dir := t.TempDir()
	for _, cp := range []string{"before", "steady"} {
		out := filepath.Join(dir, cp+".json")
		if _, _, err := run(t, "run", "-q", "--dsn", dsn, "--variants", "coarse", "--logins", "150", "--preload", "4000", "--warmup", "150",
			"--checkpoint", cp, "--expiration-job=false", "--format", "json", "-o", out); err != nil {
			t.Fatal(err)
		}
		r, err := result.Read(out)
		if err != nil {
			t.Fatal(err)
		}
		if r.Workload.Params["checkpoint"] != cp {
			t.Errorf("params say checkpoint %v, ran %s", r.Workload.Params["checkpoint"], cp)
		}
		m := r.Runs[0].Database["fpi_bytes"]
		if !m.OK() {
			t.Fatalf("%s: fpi_bytes %+v", cp, m)
		}
		fpi[cp] = m.V()
		noCP := strings.Contains(strings.Join(r.Runs[0].Warnings, "\n"), "no CHECKPOINT before the window (--checkpoint steady)")
		if noCP != (cp == "steady") {
			t.Errorf("%s: the warnings do not say where the window opened: %v", cp, r.Runs[0].Warnings)
		}
		stdout, _, err := run(t, "plan", out, "--rate", "100/s")
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"before": "right after a CHECKPOINT", "steady": "steady-state window"}[cp]
		if !strings.Contains(stdout, want) || !strings.Contains(stdout, "checkpoint_timeout 5min") {
			t.Errorf("plan of the %s window does not say %q:\n%s", cp, want, stdout)
		}
	}
	if !(fpi["steady"] < fpi["before"]/2) {
		t.Errorf("full-page-image bytes: after a CHECKPOINT %.0f, steady state %.0f: want the steady window well below", fpi["before"], fpi["steady"])
	}
}
