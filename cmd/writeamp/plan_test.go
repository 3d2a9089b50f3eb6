package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/result"
)

const fixture = "../../reports/testdata/refresh_token_pg15.json" // a real default run on PostgreSQL 15

func TestPlanPrintsWALPerDayForBothVariants(t *testing.T) {
	t.Parallel()
	out, _, err := run(t, "plan", fixture, "--rate", "500/s")
	if err != nil {
		t.Fatal(err)
	}
	// The workload's own WAL: 23,017,964 and 14,000,040 bytes per 15,000
	// refreshes (whole cluster: 23,484,848 and 14,389,288), at 500/s, 86,400 s.
	for _, want := range []string{"at 500 refreshes/s", "66.3 GB/day", "40.3 GB/day", "67.6 GB/day", "41.4 GB/day", "61.7 GiB/day", "0.77 MB/s", "0.73 MiB/s",
		"2,750/s", "400/s", "saves 26.0 GB/day of WAL", "azure-sql-hyperscale 100 MiB/s", "68,332 refreshes/s", "assumptions:", "MB = 10^6 bytes"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	out, _, err = run(t, "plan", fixture, "--rate", "30k/min", "--ceiling", "1MiB/s", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Variants []struct {
			Variant  string `json:"variant"`
			LogBytes struct {
				PerSecond float64 `json:"per_second"`
			} `json:"log_bytes"`
			Headroom []struct {
				UsedPercent float64 `json:"used_percent"`
				Within      bool    `json:"within"`
			} `json:"headroom"`
		} `json:"variants"`
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	want := 23017964.0 / 15000 * 500
	if len(p.Variants) != 2 || math.Abs(p.Variants[0].LogBytes.PerSecond-want) > 1e-6 {
		t.Fatalf("json %+v", p)
	}
	if h := p.Variants[0].Headroom[0]; !h.Within || math.Abs(h.UsedPercent-100*want/(1<<20)) > 1e-9 {
		t.Fatalf("headroom %+v", h)
	}
}

func TestPlanRefusesBadInput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"plan", fixture}, "--rate is required"},
		{[]string{"plan", fixture, "--rate", "500"}, "--rate"},
		{[]string{"plan", fixture, "--rate", "teleports=5/s"}, "teleports"},
		{[]string{"plan", fixture, "--rate", "5/s", "--ceiling", "fast"}, "--ceiling"},
		{[]string{"plan", "--rate", "5/s"}, "exactly one result file"},
		{[]string{"plan", "/nonexistent.json", "--rate", "5/s"}, "nonexistent"},
	}
	for _, c := range cases {
		_, _, err := run(t, c.args...)
		if exitCode(err) != 2 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: exit %d, %v; want a usage error naming %q", c.args, exitCode(err), err, c.want)
		}
	}
}

// plan on a hand-edited result with a negative counter is bad input (exit 2)
// naming the file and the field, not "-64.4 GB/day".
func TestPlanRefusesNegativeCounters(t *testing.T) {
	t.Parallel()
	a, _ := savedRuns(t)
	data, _ := os.ReadFile(a)
	edited := strings.Replace(string(data), `"log_bytes":{"value":`, `"log_bytes":{"value":-`, 1)
	if edited == string(data) {
		t.Fatal("fixture has no log_bytes to edit")
	}
	p := filepath.Join(t.TempDir(), "neg.json")
	os.WriteFile(p, []byte(edited), 0o644)
	out, _, err := run(t, "plan", p, "--rate", "500/s")
	wantUsage(t, err, "database.log_bytes", []string{"plan", p})
	if strings.Contains(out, "GB/day") {
		t.Errorf("a projection was printed from the edited file:\n%s", out)
	}
}

// plan takes any result: a measure without --operations is scaled per row
// changed and says so; bad counters are refused as bad input.
func TestPlanTakesAResultWithoutOperations(t *testing.T) {
	t.Parallel()
	r, err := result.Read(fixture)
	if err != nil {
		t.Fatal(err)
	}
	for i := range r.Runs {
		r.Runs[i].Operations, r.Runs[i].MainOperation = map[string]int64{}, ""
	}
	path := filepath.Join(t.TempDir(), "m.json")
	data, _ := json.Marshal(r)
	os.WriteFile(path, data, 0o644)
	out, _, err := run(t, "plan", path, "--rate", "rows=2000/s")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"at 2000 rows changed/s", "WAL per row changed", "GB/day", "the rate counts rows changed", "--operations N"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan per row lacks %q:\n%s", want, out)
		}
	}
	_, _, err = run(t, "plan", path, "--rate", "operations=500/s")
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "rows=2000/s") || !strings.Contains(err.Error(), path) {
		t.Errorf("an operation the result has no count of: exit %d %v", exitCode(err), err)
	}
	r.Runs[0].Database["log_bytes"] = result.New(-5, result.Exact, "edited")
	data, _ = json.Marshal(r)
	os.WriteFile(path, data, 0o644)
	_, _, err = run(t, "plan", path, "--rate", "rows=2000/s")
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "log_bytes is -5") {
		t.Errorf("a negative byte count: exit %d %v", exitCode(err), err)
	}
	out, _, err = run(t, "plan", fixture, "--rate", "100/s,500/s,2000/s", "--format", "json")
	var p struct {
		Rates []struct {
			Rate string `json:"rate"`
		} `json:"rates"`
	}
	if err != nil || json.Unmarshal([]byte(out), &p) != nil || len(p.Rates) != 3 || p.Rates[2].Rate != "2000/s" {
		t.Errorf("several rates in json: %v %+v", err, p)
	}
}
