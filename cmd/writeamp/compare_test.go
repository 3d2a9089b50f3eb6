package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/internal/testing/testenv"
	"github.com/writeamp/writeamp/result"
)

// savedRuns writes the reports fixture as two single-variant result files,
// the way `run --variants X --format json -o FILE` saves them.
func savedRuns(t *testing.T) (string, string) {
	t.Helper()
	r, err := result.Read(filepath.Join("..", "..", "reports", "testdata", "refresh_token_pg15.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var paths []string
	for i, name := range []string{"base.json", "coarse.json"} {
		one := *r
		one.Runs = r.Runs[i : i+1]
		data, _ := json.Marshal(one)
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths[0], paths[1]
}

func wantUsage(t *testing.T, err error, want string, args []string) {
	t.Helper()
	var ue usageError
	if err == nil || !errors.As(err, &ue) {
		t.Errorf("%v: want a usage error, got %v", args, err)
		return
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("%v: error %q does not say %q", args, err, want)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("%v: not one line: %q", args, err)
	}
}

func TestCompareSavedRuns(t *testing.T) {
	t.Parallel()
	a, b := savedRuns(t)
	out, _, err := run(t, "compare", a, b)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"BASELINE", "COARSE", "PER REFRESH", "CHANGE", "-90.0%", "+100.0 pt"} {
		if !strings.Contains(out, want) {
			t.Errorf("compare lacks %q", want)
		}
	}
	html := filepath.Join(t.TempDir(), "c.html")
	if _, _, err := run(t, "compare", a, b, "--label", "before,after", "--format", "html", "-o", html); err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(html)
	if !strings.Contains(string(page), "<svg") || !strings.Contains(string(page), ">before<") || !strings.Contains(string(page), ">after<") {
		t.Error("html compare lacks charts or the labels")
	}
	// compare computes its findings across the files, and leads with them;
	// its json carries them and the change column.
	out, _, err = run(t, "compare", a, b, "--format", "markdown")
	if err != nil || !strings.HasPrefix(out, "### writeamp") || !strings.Contains(strings.SplitN(out, "| metric", 2)[0], "**Findings: coarse vs baseline") {
		t.Errorf("compare markdown does not lead with the findings (%v):\n%.1500s", err, out)
	}
	out, _, err = run(t, "compare", a, b, "--format", "json")
	var doc struct {
		Findings []struct{ Text string } `json:"findings"`
		Changes  []struct{ Text string } `json:"changes"`
	}
	if err != nil || json.Unmarshal([]byte(out), &doc) != nil || len(doc.Findings) == 0 || len(doc.Changes) == 0 {
		t.Errorf("compare json: %v, %d findings, %d changes", err, len(doc.Findings), len(doc.Changes))
	}
	// One file is a comparison of its own runs.
	out, _, err = run(t, "compare", fixture, "--format", "markdown")
	if err != nil || !strings.Contains(out, "**Findings: coarse vs baseline") {
		t.Errorf("compare of one file: %v\n%.800s", err, out)
	}
}

func TestCompareAndDiffRefuseBadInput(t *testing.T) {
	t.Parallel()
	a, b := savedRuns(t)
	dir := t.TempDir()
	snap := filepath.Join(dir, "before.json")
	os.WriteFile(snap, []byte(`{
  "kind": "writeamp-snapshot",
  "schema_version": 1,
  "snapshot": {"server": {"dialect": "postgres"}, "taken_at": "2025-01-01T00:00:00Z", "scope": {}, "counters": []}
}`), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"compare"}, "one or more result files"},
		{[]string{"compare", a, filepath.Join(dir, "nope.json")}, "no such file"},
		{[]string{"compare", a, snap}, "is a snapshot, not a result"},
		{[]string{"compare", a, b, "--label", "one"}, "1 labels for 2 files"},
		{[]string{"compare", a, b, "--format", "pdf"}, "--format"},
		{[]string{"diff", snap}, "two snapshot files"},
		{[]string{"diff", a, snap}, "is a writeamp result, not a snapshot"},
		{[]string{"diff", snap, filepath.Join(dir, "nope.json")}, "no such file"},
		{[]string{"measure", "--dsn", "postgres://x@127.0.0.1:1/x"}, "name the command to measure"},
		{[]string{"measure", "--format", "yaml", "--", "true"}, "--format"},
		{[]string{"snapshot", "--dsn", "postgres://x@127.0.0.1:1/x"}, "-o/--output"},
		{[]string{"run", "--concurrency", "1,0"}, "--concurrency"},
		{[]string{"run", "--concurrency", "8,8"}, "given twice"},
	}
	for _, c := range cases {
		_, _, err := run(t, c.args...)
		wantUsage(t, err, c.want, c.args)
	}
}

func TestParseLevels(t *testing.T) {
	t.Parallel()
	got, err := parseLevels("1, 8,32")
	if err != nil || len(got) != 3 || got[0] != 1 || got[1] != 8 || got[2] != 32 {
		t.Errorf("%v %v", got, err)
	}
	if got, err := parseLevels("4"); err != nil || len(got) != 1 || got[0] != 4 {
		t.Errorf("a single level: %v %v", got, err)
	}
}

func TestSweepMergeLabelsEachLevel(t *testing.T) {
	t.Parallel()
	mk := func() *result.Result {
		return &result.Result{Runs: []result.Run{{Variant: "baseline"}, {Variant: "coarse"}}, Notes: []string{"same note"}}
	}
	acc := sweepMerge(nil, mk(), 1, true)
	acc = sweepMerge(acc, mk(), 8, true)
	var labels []string
	for _, r := range acc.Runs {
		labels = append(labels, r.Label)
	}
	if strings.Join(labels, ",") != "baseline c=1,coarse c=1,baseline c=8,coarse c=8" || acc.Runs[3].Concurrency != 8 {
		t.Errorf("labels %v", labels)
	}
	if len(acc.Notes) != 1 {
		t.Errorf("notes repeated per level: %v", acc.Notes)
	}
	if one := sweepMerge(nil, mk(), 4, false); one.Runs[0].Label != "" || one.Runs[0].Concurrency != 0 {
		t.Errorf("a single level changes nothing: %+v", one.Runs[0])
	}
}

func TestMeasureExitsWithTheCommandsStatus(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, "WRITEAMP_TEST_PG_DSN")
	out, _, err := run(t, "measure", "-q", "--dsn", dsn, "--schema", "public", "--", "sh", "-c", "echo from-the-command; exit 5")
	var ee exitError
	if !errors.As(err, &ee) || ee.code != 5 {
		t.Errorf("want exit code 5 from the command, got %v", err)
	}
	if !strings.Contains(out, "from-the-command") || !strings.Contains(out, "exit status") {
		t.Errorf("the command's output and the report should both be on stdout:\n%s", out)
	}
	if _, _, err := run(t, "measure", "-q", "--dsn", dsn, "--schema", "public", "--", "true"); err != nil {
		t.Errorf("a successful command: %v", err)
	}
}
