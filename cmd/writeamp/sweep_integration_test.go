package main

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/internal/testing/testenv"
	"github.com/writeamp/writeamp/reports"
	"github.com/writeamp/writeamp/result"
)

// A sweep measures every variant at every level, and each run carries the
// wait samplers' shares for its own level: the overall ones add up to the
// whole of the sampled active time, the refreshes' to theirs; the html
// draws them against the levels.
func TestSweepHasWaitSharesPerLevel(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, "WRITEAMP_TEST_PG_DSN")
	out := filepath.Join(t.TempDir(), "sweep.json")
	if _, _, err := run(t, "run", "-q", "--dsn", dsn, "--logins", "60", "--refreshes-per-login", "4", "--concurrency", "1,4",
		"--format", "json", "--output", out); err != nil {
		t.Fatal(err)
	}
	r, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Runs) != 4 {
		t.Fatalf("want baseline and coarse at 1 and 4 workers, got %d runs", len(r.Runs))
	}
	withRefresh := 0
	for _, run := range r.Runs {
		if run.Concurrency != 1 && run.Concurrency != 4 {
			t.Errorf("%s: level %d", run.Label, run.Concurrency)
		}
		if n := run.Database["wait_samples"]; n.V() < 1 || n.Exactness != result.Approx {
			t.Errorf("%s: wait_samples %+v", run.Label, n)
		}
		sum, opSum := 0.0, 0.0
		for name, m := range run.Database {
			if m.Exactness != result.Approx && (strings.HasPrefix(name, result.WaitSharePrefix) || strings.HasPrefix(name, result.OpWaitSharePrefix)) {
				t.Errorf("%s: %s is %s, a sampled share is approx", run.Label, name, m.Exactness)
			}
			if strings.HasPrefix(name, result.WaitSharePrefix) {
				sum += m.V()
			}
			if strings.HasPrefix(name, result.OpWaitSharePrefix+"refresh.") {
				opSum += m.V()
			}
		}
		// A small run on a loaded machine (the sampler widens its interval
		// to stay in its CPU budget) can have no reading that saw a session
		// active, or none inside a refresh: then there are no such shares at
		// all, never a partial sum.
		active := run.Database["active_sessions"]
		if active.V() == 0 && sum != 0 {
			t.Errorf("%s: shares %v with no session-sample active", run.Label, sum)
		}
		if (active.V() > 0 && math.Abs(sum-1) > 1e-9) || (math.Abs(opSum-1) > 1e-9 && opSum != 0) {
			t.Errorf("%s: the shares add up to %v overall and %v within refreshes, want 1 each", run.Label, sum, opSum)
		}
		if opSum != 0 {
			withRefresh++
		}
	}
	if withRefresh == 0 {
		t.Error("no run has a wait share within refreshes")
	}
	var html bytes.Buffer
	if err := reports.HTML(&html, r); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"baseline", "coarse"} {
		if !strings.Contains(html.String(), `id="chart-sweep-`+v+`"`) {
			t.Errorf("the html has no chart of %s's waits by concurrency", v)
		}
	}
}

// SESSION_BUCKET on its own: the coarse variant with every session in one
// bucket against 64, at 32 workers, each with the figures the claim is
// about: the expiration index's pages touched and leaf page splits (exact,
// from the WAL), the waits (sampled) and the throughput.
func TestBucketsOneAgainstSixtyFour(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, "WRITEAMP_TEST_PG_DSN")
	for _, b := range []string{"1", "64"} {
		out := filepath.Join(t.TempDir(), "b"+b+".json")
		if _, _, err := run(t, "run", "-q", "--dsn", dsn, "--variants", "coarse", "--buckets", b, "--concurrency", "32",
			"--logins", "200", "--refreshes-per-login", "4", "--format", "json", "--output", out); err != nil {
			t.Fatal(err)
		}
		r, err := result.Read(out)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Workload.Params["buckets"]; got != float64(map[string]int{"1": 1, "64": 64}[b]) {
			t.Fatalf("--buckets %s: the result says buckets=%v", b, got)
		}
		run := r.Runs[0]
		ix := run.Index("idx_user_session_expiration_last_refresh")
		if ix == nil {
			t.Fatalf("--buckets %s: no expiration index in the result", b)
		}
		for _, m := range []string{"pages_touched", "leaf_page_splits"} {
			if v := ix.Metrics[m]; v.Exactness != result.Exact || (m == "pages_touched" && v.V() < 1) {
				t.Errorf("--buckets %s: %s %+v", b, m, v)
			}
		}
		waits := 0
		for name := range run.Database {
			if strings.HasPrefix(name, result.WaitSharePrefix) {
				waits++
			}
		}
		if run.Throughput <= 0 || run.Database["wait_samples"].V() < 1 || waits == 0 {
			t.Errorf("--buckets %s: throughput %v, %v wait samples, %d waits", b, run.Throughput, run.Database["wait_samples"], waits)
		}
	}
}
