package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/advise"
)

// advise's whole run is held against the two checks it stands for, and
// the second candidate's share of it against that candidate's check; a
// pair without a second candidate gives no per-candidate ratio.
func TestAdviseRatiosAreAdviseOverTheChecksByHand(t *testing.T) {
	whole, per := adviseRatios([]adviseTimes{
		{one: 12, two: 18, diag: 5, drop: 5, cand: 5},
		{one: 9, two: 15, diag: 5, drop: 5, cand: 6},
		{one: 11, diag: 4, drop: 6},
	})
	if want := []float64{0.9, 1.1, 1.2}; !slices.Equal(whole, want) {
		t.Errorf("whole %v, want %v (sorted)", whole, want)
	}
	if want := []float64{1, 1.2}; !slices.Equal(per, want) {
		t.Errorf("per candidate %v, want %v (sorted, the pair without a second candidate left out)", per, want)
	}
}

// Both sides run the same work, its DSN the one --dsn names, as one
// argument (what check and advise point at each copy).
func TestAdviseAndCheckArgsWrapTheSameWork(t *testing.T) {
	dsn := "postgres://postgres@127.0.0.1:5999/db?sslmode=disable"
	work := []string{"pgbench", "-n", "-t", "1000", dsn}
	a := adviseArgs(dsn, 2, "/tmp/out.json", work)
	c := checkArgs(dsn, "/tmp/drop.sql", work)
	want := "advise --dsn " + dsn + " --max-candidates 2 -q --format json -o /tmp/out.json -- pgbench -n -t 1000 " + dsn
	if got := strings.Join(a, " "); got != want {
		t.Errorf("advise args %q, want %q", got, want)
	}
	want = "check --report-only --dsn " + dsn + " --migration /tmp/drop.sql -q -- pgbench -n -t 1000 " + dsn
	if got := strings.Join(c, " "); got != want {
		t.Errorf("check args %q, want %q", got, want)
	}
	for _, args := range [][]string{a, c} {
		dash := slices.Index(args, "--")
		if !slices.Equal(args[dash+1:], work) {
			t.Errorf("wrapped command %q, want %q", args[dash+1:], work)
		}
	}
	// The work's slice is not shared between the two argument lists.
	a[len(a)-1] = "changed"
	if c[len(c)-1] != dsn {
		t.Errorf("check's args changed with advise's: %q", c)
	}
}

// The report's candidates are read from advise's own JSON, measured ones
// first; the one-candidate run must be the drop the peer's drop.sql does,
// and the second candidate is the one the two-candidate run adds,
// whatever the ranking's order.
func TestAdviceCandidatesAreReadFromTheJSONReport(t *testing.T) {
	path := filepath.Join(t.TempDir(), "advice.json")
	doc := `{"tool": "writeamp advise", "recommendations": [
	  {"rank": 1, "change": "ALTER TABLE pgbench_accounts SET (fillfactor = 90)", "kind": "fillfactor", "migration": {"up": "ALTER TABLE public.pgbench_accounts SET (fillfactor = 90); VACUUM FULL public.pgbench_accounts;", "down": "x"}},
	  {"rank": 2, "change": "drop index acc_abalance", "kind": "updated_key", "migration": {"up": "DROP INDEX \"public\".\"acc_abalance\";", "down": "y"}}],
	 "skipped": [{"change": "ALTER TABLE pgbench_accounts SET (fillfactor = 70)", "error": "not measured: the time budget (1s) was spent"}]}`
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	two, err := readAdvice(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(two) != 3 || two[2].Error == "" || !strings.Contains(two[1].Migration.Up, "acc_abalance") {
		t.Fatalf("candidates %+v: want the two measured, then the skipped one", two)
	}
	one := two[1:2]
	if err := isDropOf(one, "acc_abalance"); err != nil {
		t.Errorf("the drop of acc_abalance refused: %v", err)
	}
	if err := isDropOf(two[:1], "acc_abalance"); err == nil {
		t.Error("a fillfactor candidate taken for the drop")
	}
	if err := isDropOf(two, "acc_abalance"); err == nil {
		t.Error("three candidates taken for one")
	}
	unmeasured := []advise.Recommendation{{Change: "drop index acc_abalance", Migration: advise.Migration{Up: "DROP INDEX acc_abalance;"}, Error: "apply: boom"}}
	if err := isDropOf(unmeasured, "acc_abalance"); err == nil {
		t.Error("an unmeasured candidate taken for the drop")
	}
	got, err := extraCandidate(one, two[:2])
	if err != nil || got.Kind != "fillfactor" {
		t.Errorf("second candidate %+v, %v: want the fillfactor one", got, err)
	}
	if _, err := extraCandidate(one, one); err == nil {
		t.Error("no second candidate not reported")
	}
	if _, err := extraCandidate(one, two); err == nil {
		t.Error("two new candidates (one skipped) taken for one")
	}
	if _, err := extraCandidate(one, []advise.Recommendation{one[0], two[2]}); err == nil || !strings.Contains(err.Error(), "not measured") {
		t.Errorf("a skipped second candidate: %v, want not measured", err)
	}
	if err := os.WriteFile(path, []byte("not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readAdvice(path); err == nil {
		t.Error("a report that is not JSON read")
	}
}
