package main

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/internal/testing/testenv"
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

// --warmup-until-stable repeats the warm-up after the CHECKPOINT until two
// rounds in a row write log bytes per operation within 10%: the first
// round, imaging every page it touches, writes far more per operation than
// the last; the job then deletes every round's sessions, as the model of
// the table counts them; plan says how the steady state was reached.
func TestWarmupUntilTheLogRateSettles(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, "WRITEAMP_TEST_PG_DSN")
	out := filepath.Join(t.TempDir(), "r.json")
	if _, _, err := run(t, "run", "-q", "--dsn", dsn, "--variants", "coarse", "--logins", "100", "--preload", "2000", "--warmup", "100",
		"--warmup-until-stable", "--checkpoint", "steady", "--format", "json", "-o", out); err != nil {
		t.Fatal(err)
	}
	r, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	db := r.Runs[0].Database
	rounds, settled := db["warmup_rounds"], db["warmup_settled"]
	if !rounds.OK() || rounds.V() < 2 || rounds.V() > 20 || !settled.OK() {
		t.Fatalf("warmup_rounds %+v, warmup_settled %+v", rounds, settled)
	}
	var perOp []float64
	list := rounds.Source[strings.LastIndex(rounds.Source, ": ")+2:]
	for _, f := range strings.Split(strings.TrimSuffix(list, " B/op"), ", ") {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			t.Fatalf("rounds' rates %q: %v", list, err)
		}
		perOp = append(perOp, v)
	}
	if len(perOp) != int(rounds.V()) {
		t.Fatalf("%v rounds, %d rates in %q", rounds.V(), len(perOp), rounds.Source)
	}
	last := perOp[len(perOp)-1]
	if settled.V() == 1 && math.Abs(last-perOp[len(perOp)-2]) > 0.1*math.Max(last, perOp[len(perOp)-2])+0.5 {
		t.Errorf("settled, but the last two rounds wrote %v", perOp)
	}
	if !(perOp[0] > 1.3*last) {
		t.Errorf("the first round after the CHECKPOINT (%.0f B/op) should write well above the last (%.0f B/op): %v", perOp[0], last, perOp)
	}
	// Every round leaves 90 sessions (10% log out), the window 90, the preload 2000.
	want := 2000 + 90*rounds.V() + 90
	if got := db["expiration_job_sessions_deleted"]; got.V() != want {
		t.Errorf("the job deleted %v sessions, the rounds' model expects %v (warnings %q)", got.V(), want, r.Runs[0].Warnings)
	}
	stdout, _, err := run(t, "plan", out, "--rate", "100/s")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "repeated until its log rate per operation settled (coarse "+strconv.Itoa(int(rounds.V()))+" rounds") {
		t.Errorf("plan does not say how the warm-up reached the steady state:\n%s", stdout)
	}
}

// On MariaDB (no full-page images: InnoDB's doublewrite buffer is not in
// the redo log) the rounds still run until the redo rate settles, and the
// job deletes every round's sessions.
func TestWarmupUntilStableOnMariaDB(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, "WRITEAMP_TEST_MYSQL_DSN")
	out := filepath.Join(t.TempDir(), "r.json")
	if _, _, err := run(t, "run", "-q", "--dsn", dsn, "--variants", "coarse", "--logins", "100", "--preload", "2000", "--warmup", "100",
		"--warmup-until-stable", "--format", "json", "-o", out); err != nil {
		t.Fatal(err)
	}
	r, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	db := r.Runs[0].Database
	rounds, settled, rate := db["warmup_rounds"], db["warmup_settled"], db["warmup_log_bytes_per_operation"]
	if !rounds.OK() || rounds.V() < 2 || settled.V() != 1 || !(rate.V() > 0) || !strings.Contains(rate.Source, "Innodb_lsn_current") {
		t.Fatalf("warmup_rounds %+v, warmup_settled %+v, warmup_log_bytes_per_operation %+v", rounds, settled, rate)
	}
	if want, got := 2000+90*rounds.V()+90, db["expiration_job_sessions_deleted"].V(); got != want {
		t.Errorf("the job deleted %v sessions, the rounds' model expects %v (warnings %q)", got, want, r.Runs[0].Warnings)
	}
}
