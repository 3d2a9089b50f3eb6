package check

import (
	"testing"

	"github.com/writeamp/writeamp/budget"
	"github.com/writeamp/writeamp/result"
)

func runOf(logBytes, ops float64) *result.Run {
	return &result.Run{
		Operations:    map[string]int64{"row_writes": int64(ops)},
		MainOperation: "row_writes",
		Database:      map[string]result.Metric{"log_bytes": result.New(logBytes, result.Exact, "LSN")},
		Tables:        []result.Object{{Name: "jobs", Metrics: map[string]result.Metric{"rows_updated": result.New(ops, result.Exact, "n_tup_upd")}}},
	}
}

func reps(before, after []float64) *Repetitions {
	rp := &Repetitions{}
	for _, b := range before {
		rp.Before = append(rp.Before, runOf(b, 100))
	}
	for _, a := range after {
		rp.After = append(rp.After, runOf(a, 100))
	}
	return rp
}

// Budgets judge the medians; a failure whose change lies inside the spread
// of the repetitions says so and does not fail the check, a clear change
// still fails, and the spread is in the verdict either way.
func TestRepeatJudgesTheMedianAndTheSpread(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		budget        string
		before, after []float64
		want          budget.Status
	}{
		{"log_bytes<=+5%", []float64{100, 120, 140}, []float64{150, 130, 135}, budget.Spread},      // 120 -> 135, +12.5%, ranges overlap
		{"log_bytes<=+5%", []float64{100, 101, 102}, []float64{130, 131, 132}, budget.Fail},        // clear
		{"log_bytes<=+50%", []float64{100, 101, 102}, []float64{130, 131, 132}, budget.Pass},       // within
		{"log_bytes/op<=1.25B", []float64{100, 101, 102}, []float64{120, 130, 140}, budget.Spread}, // median 1.30 B/op, one repetition at 1.20
		{"log_bytes/op<=1.15B", []float64{100, 101, 102}, []float64{120, 130, 140}, budget.Fail},
	} {
		b, err := budget.Parse(c.budget)
		if err != nil {
			t.Fatal(err)
		}
		rp := reps(c.before, c.after)
		vs := rp.judge(b, budget.Evaluate(b, mustMedian(t, "before", rp.Before), mustMedian(t, "after", rp.After)))
		if len(vs) != 1 || vs[0].Status != c.want || vs[0].BeforeRange == nil || vs[0].AfterRange == nil {
			t.Errorf("%s %v -> %v: %+v, want %s", c.budget, c.before, c.after, vs, c.want)
			continue
		}
		if v := vs[0]; *v.Before != medianOf(c.before)/perOp(c.budget) || v.AfterRange[0] != minOf(c.after)/perOp(c.budget) {
			t.Errorf("%s: before %v (median %v), after range %v", c.budget, *v.Before, medianOf(c.before), *v.AfterRange)
		}
	}
	o := &Outcome{Verdicts: []budget.Verdict{{Status: budget.Spread}, {Status: budget.Pass}}}
	if o.Exit() != 0 || o.Headline() != "writeamp check: PASS — 1 within budget, 0 exceeded, 1 exceeded on the medians but inside the spread of the repetitions" {
		t.Errorf("exit %d, %q", o.Exit(), o.Headline())
	}
}

func perOp(b string) float64 {
	if len(b) > 12 && b[:12] == "log_bytes/op" {
		return 100
	}
	return 1
}

func medianOf(xs []float64) float64 { return median(xs) }

func minOf(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs {
		m = min(m, x)
	}
	return m
}

// The median run holds each counter's median; an even count's median is a
// mean, so no longer exact.
func TestMedianRun(t *testing.T) {
	t.Parallel()
	m := mustMedian(t, "after", []*result.Run{runOf(10, 100), runOf(30, 102), runOf(20, 101)})
	if v := m.Database["log_bytes"]; v.V() != 20 || v.Exactness != result.Exact || m.Operations["row_writes"] != 101 || m.Label != "after" {
		t.Errorf("odd: %+v ops %v", v, m.Operations)
	}
	if v := m.Table("jobs").Metrics["rows_updated"]; v.V() != 101 {
		t.Errorf("table metric %+v", v)
	}
	m = mustMedian(t, "after", []*result.Run{runOf(10, 100), runOf(30, 100)})
	if v := m.Database["log_bytes"]; v.V() != 20 || v.Exactness != result.Derived {
		t.Errorf("even: %+v", v)
	}
}

func mustMedian(t *testing.T, label string, runs []*result.Run) *result.Run {
	t.Helper()
	m, err := medianRun(label, runs)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The median run is a copy: the repetitions it came from are unchanged.
func TestMedianRunLeavesItsRepetitionsAlone(t *testing.T) {
	a, b := runOf(10, 100), runOf(30, 102)
	m := mustMedian(t, "after", []*result.Run{a, b})
	if m.Label != "after" || a.Label == "after" {
		t.Errorf("labels: median %q, first repetition %q", m.Label, a.Label)
	}
	for k, v := range a.Database {
		if w := b.Database[k]; v.V() == w.V() {
			continue
		}
		if m.Database[k].V() == v.V() {
			t.Errorf("%s: the median is the first repetition's %v", k, v.V())
		}
	}
}
