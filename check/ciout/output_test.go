package ciout

import (
	"bytes"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/budget"
	"github.com/writeamp/writeamp/check"
	"github.com/writeamp/writeamp/result"
)

// outcome holds the saved PostgreSQL run's two variants against a budget,
// as a check does with its before and after runs.
func outcome(t *testing.T, budgets ...string) *check.Outcome {
	t.Helper()
	res, err := result.Read(filepath.Join("..", "..", "reports", "testdata", "refresh_token_pg15.json"))
	if err != nil {
		t.Fatal(err)
	}
	before, after := &res.Runs[0], &res.Runs[1] // baseline, coarse
	o := &check.Outcome{Result: res, Static: []check.Warning{{Index: "idx_x", Table: "offline_user_session", Column: "last_session_refresh", Text: "index idx_x includes last_session_refresh"}}}
	for _, s := range budgets {
		b, err := budget.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		o.Verdicts = append(o.Verdicts, budget.Evaluate(b, before, after)...)
	}
	return o
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

type junit struct {
	Suites []struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
	} `xml:"testsuite"`
}

// Each verdict maps to its documented exit code, and every output the
// check was asked for is written, the step summary appended to.
func TestWriteOutputsAndExitCodes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		budget   string
		code     int
		failures int
		errs     int
		word     string
	}{
		{"hot_ratio[offline_user_session]>=0.9", 0, 0, 0, "PASS"},
		{"hot_ratio[offline_user_session]<=0.5", 1, 1, 0, "FAIL"},
		{"hot_ratio[no_such_table]>=0.9", 2, 0, 1, "UNKNOWN"},
	} {
		dir := t.TempDir()
		summary := filepath.Join(dir, "summary.md")
		os.WriteFile(summary, []byte("earlier step\n"), 0o644)
		var stdout, log bytes.Buffer
		w := Outputs{Format: "markdown", Report: filepath.Join(dir, "r.md"), JUnit: filepath.Join(dir, "j.xml"), Result: filepath.Join(dir, "r.json"),
			StepSummary: summary, Stdout: &stdout, Log: &log}
		err := Write(outcome(t, c.budget), w, nil)
		var ee *check.ExitError
		switch {
		case c.code == 0 && err != nil:
			t.Errorf("%s: %v, want a pass", c.budget, err)
		case c.code != 0 && (!errors.As(err, &ee) || ee.ExitCode() != c.code || strings.HasPrefix(err.Error(), "writeamp check:") || !strings.Contains(err.Error(), c.word)):
			t.Errorf("%s: %v, want exit %d with %s", c.budget, err, c.code, c.word)
		}
		if c.code == 0 && !strings.Contains(log.String(), "writeamp check: PASS") {
			t.Errorf("a pass says so in the notes: %q", log.String())
		}
		if stdout.Len() != 0 {
			t.Errorf("%s: stdout written although every output has a file:\n%.300s", c.budget, stdout.String())
		}
		if r := read(t, w.Report); !strings.Contains(r, "### writeamp check: "+c.word) || !strings.Contains(r, "offline_user_session") {
			t.Errorf("%s: the report lacks the verdict or the comparison:\n%.600s", c.budget, r)
		}
		var j junit
		if err := xml.Unmarshal([]byte(read(t, w.JUnit)), &j); err != nil || len(j.Suites) != 1 || j.Suites[0].Tests != 1 ||
			j.Suites[0].Failures != c.failures || j.Suites[0].Errors != c.errs {
			t.Errorf("%s: junit %+v %v", c.budget, j, err)
		}
		if r, err := result.Read(w.Result); err != nil || len(r.Runs) != 2 {
			t.Errorf("%s: the saved result does not read back: %v", c.budget, err)
		}
		if s := read(t, summary); !strings.HasPrefix(s, "earlier step\n") || !strings.Contains(s, "### writeamp check: "+c.word) {
			t.Errorf("%s: the step summary was not appended to:\n%.300s", c.budget, s)
		}
	}
}

// `--junit -` and `--result -` go to stdout with the report (they once
// panicked on a nil writer).
func TestWriteDashIsStdout(t *testing.T) {
	t.Parallel()
	var stdout bytes.Buffer
	w := Outputs{Format: "json", JUnit: "-", Result: "-", Stdout: &stdout}
	if err := Write(outcome(t, "hot_ratio[offline_user_session]>=0.9"), w, nil); err != nil {
		t.Fatal(err)
	}
	out := stdout.String()
	if strings.Count(out, "<testsuite ") != 1 || !strings.Contains(out, `"check": "pass"`) || strings.Count(out, `"schema_version": 1`) != 2 {
		t.Errorf("stdout lacks the JUnit, the check document or the result:\n%.1500s", out)
	}
}

// A check that could not measure writes its JUnit (so CI shows why) and
// the step summary, prints the static warnings, exits 2, and writes no
// report or result.
func TestWriteCouldNotMeasure(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	summary := filepath.Join(dir, "summary.md")
	var stdout, stderr bytes.Buffer
	w := Outputs{Format: "table", Report: filepath.Join(dir, "r.txt"), JUnit: filepath.Join(dir, "j.xml"), Result: filepath.Join(dir, "r.json"),
		StepSummary: summary, Stdout: &stdout, Stderr: &stderr}
	o := &check.Outcome{Static: outcome(t).Static}
	cause := errors.New("could not measure: the migration failed: syntax error")
	err := Write(o, w, cause)
	var ee *check.ExitError
	if !errors.As(err, &ee) || ee.Code != 2 || !errors.Is(err, cause) {
		t.Fatalf("%v, want exit 2 wrapping the cause", err)
	}
	var j junit
	if err := xml.Unmarshal([]byte(read(t, w.JUnit)), &j); err != nil || j.Suites[0].Errors != 1 {
		t.Errorf("junit %+v %v", j, err)
	}
	if s := read(t, summary); !strings.Contains(s, "could not measure") || !strings.Contains(s, "syntax error") {
		t.Errorf("step summary: %q", s)
	}
	if !strings.Contains(stderr.String(), "warning: index idx_x includes last_session_refresh") {
		t.Errorf("static warnings not on stderr: %q", stderr.String())
	}
	for _, p := range []string{w.Report, w.Result} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s written for a check that measured nothing", p)
		}
	}
}

// A step summary that cannot be written is a note; the verdict stands.
func TestWriteStepSummaryFailureIsANote(t *testing.T) {
	t.Parallel()
	var stdout, log bytes.Buffer
	w := Outputs{Format: "table", StepSummary: t.TempDir(), Stdout: &stdout, Log: &log}
	if err := Write(outcome(t, "hot_ratio[offline_user_session]>=0.9"), w, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "warning: GITHUB_STEP_SUMMARY:") {
		t.Errorf("notes: %q", log.String())
	}
	if err := Write(outcome(t), Outputs{Format: "yaml"}, nil); err == nil || !strings.Contains(err.Error(), "yaml") {
		t.Errorf("unknown format: %v", err)
	}
}
