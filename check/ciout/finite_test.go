package ciout

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/budget"
)

// No NaN or infinity, wherever it hides, aborts check's JSON: the
// document is written and reads back, the bad numbers as n/a.
func TestJSONSurvivesNonFiniteNumbers(t *testing.T) {
	t.Parallel()
	o := outcome(t, "leaf_inserts/op<=+10%", "log_bytes/op<=+5%")
	inf, nan := math.Inf(1), math.NaN()
	o.Verdicts = append(o.Verdicts, budget.Verdict{Budget: "x<=+1%", Status: budget.Fail, Compared: &inf, Before: &nan, AfterRange: &[2]float64{1, inf}})
	run := &o.Result.Runs[1]
	if run.PerOperation == nil {
		run.PerOperation = map[string]map[string]float64{}
	}
	run.PerOperation["refresh"] = map[string]float64{"bad": inf, "good": 1}
	run.ElapsedSeconds = nan
	var out bytes.Buffer
	if err := JSON(&out, o); err != nil {
		t.Fatalf("JSON: %v", err)
	}
	var d map[string]any
	if err := json.Unmarshal(out.Bytes(), &d); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if strings.Contains(out.String(), `"bad"`) || !strings.Contains(out.String(), `"good"`) {
		t.Errorf("the infinite per-operation figure should be left out, the finite kept")
	}
	out.Reset()
	w := Outputs{Format: "json", Stdout: &out, Result: "-"}
	_ = Write(o, w, nil)
	if strings.Contains(out.String(), "unsupported value") || strings.Count(out.String(), `"schema_version"`) < 1 {
		t.Errorf("--result: %.300s", out.String())
	}
}

// The markdown report (the PR comment) starts with the verdict, and says it once.
func TestMarkdownStartsWithTheVerdict(t *testing.T) {
	t.Parallel()
	o := outcome(t, "log_bytes/op<=+5%")
	var out bytes.Buffer
	if err := render(&out, o, "markdown", 0); err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(out.String(), "\n")
	if !strings.HasPrefix(first, "### writeamp check: ") || first != "### "+o.Headline() {
		t.Fatalf("first line %q", first)
	}
	if n := strings.Count(out.String(), o.Headline()); n != 1 {
		t.Errorf("the headline appears %d times", n)
	}
	out.Reset()
	if err := render(&out, o, "table", 0); err != nil || !strings.Contains(out.String(), o.Headline()) {
		t.Errorf("the table report keeps its headline: %v", err)
	}
}
