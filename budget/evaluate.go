package budget

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/dustin/go-humanize"

	"github.com/writeamp/writeamp/result"
)

// Status of one verdict.
type Status string

const (
	Pass    Status = "pass"
	Fail    Status = "fail"
	Unknown Status = "unknown" // could not be evaluated: the metric is missing or unavailable
	// Spread: the median exceeds the budget, but repeated measurements
	// (check --repeat) overlap: the change is not told apart from their
	// spread. Not a failure; the verdict says so.
	Spread Status = "inside-spread"
	// New: the object is absent from the before run (the migration created
	// it) and the budget compares with before (a relative change, or a
	// ratio's change): there is nothing to compare with, so it neither
	// passes nor fails; the after value is shown, and the table's
	// index_entries (or an absolute threshold) is what holds it.
	New Status = "new"
)

// Verdict is one budget evaluated on one object.
type Verdict struct {
	Budget    string           `json:"budget"`
	Level     string           `json:"level"` // database, table, index
	Object    string           `json:"object,omitempty"`
	Before    *float64         `json:"before,omitempty"`
	After     *float64         `json:"after,omitempty"`
	Compared  *float64         `json:"compared,omitempty"` // the number held against the threshold
	Unit      string           `json:"unit"`               // of Compared: "%", "bytes", "fraction", ...
	Status    Status           `json:"status"`
	Exactness result.Exactness `json:"exactness,omitempty"`
	Message   string           `json:"message"`
	// Test is the comparison alone ("+12% <= +5%"), without the status, for
	// a caller that restates the verdict (check --repeat's spread).
	Test string `json:"-"`
	// Hints explain a failure (e.g. the indexes the migration added to the table).
	Hints []string `json:"hints,omitempty"`
	// BeforeRange and AfterRange are the lowest and highest value of the
	// repetitions of each side (check --repeat); Before and After are then
	// their medians.
	BeforeRange *[2]float64 `json:"before_range,omitempty"`
	AfterRange  *[2]float64 `json:"after_range,omitempty"`
}

// Holds reports whether c meets the budget's comparison.
func (b Budget) Holds(c float64) bool { return compare(c, b.Cmp, b.Value) }

type target struct {
	level, name string
	get         func(*result.Run) (result.Metric, bool) // (metric, object present)
}

func metricOf(objs func(*result.Run) *result.Object, metric string) func(*result.Run) (result.Metric, bool) {
	return func(r *result.Run) (result.Metric, bool) {
		o := objs(r)
		if o == nil {
			return result.Metric{}, false
		}
		m, ok := o.Metrics[metric]
		if !ok {
			return result.NA("", metric+" was not measured for "+o.Name), true
		}
		return m, true
	}
}

func targets(b Budget, before, after *result.Run) ([]target, string) {
	tableT := func(name string) target {
		return target{"table", name, metricOf(func(r *result.Run) *result.Object { return r.Table(name) }, b.Metric)}
	}
	indexT := func(name string) target {
		return target{"index", name, metricOf(func(r *result.Run) *result.Object { return r.Index(name) }, b.Metric)}
	}
	if isIndexEntries(b) {
		return indexEntriesTargets(b, before, after)
	}
	if b.Object != "" {
		name := b.Object
		if i := strings.LastIndex(name, "."); i >= 0 {
			name = name[i+1:] // schema.name: runs are compared by name
		}
		switch {
		case after.Table(name) != nil || before.Table(name) != nil:
			return []target{tableT(name)}, ""
		case after.Index(name) != nil || before.Index(name) != nil:
			return []target{indexT(name)}, ""
		}
		return nil, fmt.Sprintf("no table or index named %q was measured in either run", b.Object)
	}
	_, inA := after.Database[b.Metric]
	_, inB := before.Database[b.Metric]
	if inA || inB {
		return []target{{"database", "", func(r *result.Run) (result.Metric, bool) {
			m, ok := r.Database[b.Metric]
			if !ok {
				return result.NA("", b.Metric+" was not measured"), true
			}
			return m, true
		}}}, ""
	}
	var out []target
	seen := map[string]bool{}
	for _, r := range []*result.Run{after, before} {
		for _, t := range r.Tables {
			if m, ok := t.Metrics[b.Metric]; ok && !seen["t/"+t.Name] && (m.OK() || !isRatio(b.Metric)) {
				seen["t/"+t.Name] = true
				out = append(out, tableT(t.Name))
			}
		}
	}
	if len(out) == 0 {
		for _, r := range []*result.Run{after, before} {
			for _, ix := range r.Indexes {
				if _, ok := ix.Metrics[b.Metric]; ok && !seen["i/"+ix.Name] {
					seen["i/"+ix.Name] = true
					out = append(out, indexT(ix.Name))
				}
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].name < out[j].name })
	if len(out) == 0 {
		return nil, fmt.Sprintf("no database, table or index metric named %q with a value in either run", b.Metric)
	}
	return out, ""
}

// value is the number a budget reads from one run: the metric, per
// operation when asked. An object absent from a run counts 0 for counts (an
// index the migration added had no writes before) and nothing for ratios.
func value(b Budget, t target, r *result.Run) (float64, result.Exactness, string) {
	m, present := t.get(r)
	if !present {
		if isRatio(b.Metric) {
			return 0, "", "absent"
		}
		return 0, result.Exact, ""
	}
	if !m.OK() {
		why := m.Note
		if why == "" {
			why = "unavailable"
		}
		return 0, "", why
	}
	v := m.V()
	if b.PerOp && !isRatio(b.Metric) {
		op, n := r.Main()
		if n <= 0 {
			return 0, "", "the run has no main operation to divide by (/op)"
		}
		_ = op
		v /= float64(n)
	}
	return v, m.Exactness, ""
}

// Evaluate holds a budget against the before and after runs: one verdict per
// object it applies to.
func Evaluate(b Budget, before, after *result.Run) []Verdict {
	ts, why := targets(b, before, after)
	if why != "" {
		return []Verdict{{Budget: b.String(), Level: "", Object: b.Object, Status: Unknown, Message: why}}
	}
	var out []Verdict
	for _, t := range ts {
		out = append(out, evaluateOne(b, t, before, after))
	}
	return out
}

func evaluateOne(b Budget, t target, before, after *result.Run) Verdict {
	v := Verdict{Budget: b.String(), Level: t.level, Object: t.name, Unit: unitOf(b)}
	_, inBefore := t.get(before)
	_, inAfter := t.get(after)
	x, ex, whyB := value(b, t, before)
	y, ey, whyA := value(b, t, after)
	if !inBefore && inAfter && whyA == "" && (b.Kind == Relative || b.Kind == Delta && isRatio(b.Metric)) {
		v.After, v.Before = &y, nil
		v.Exactness = orExact(ey)
		v.Status = New
		v.Test = "new: no before"
		v.Message = fmt.Sprintf("new: %s %s is absent before the migration, so it has no %s to compare (after: %s); hold it with an absolute threshold", t.level, t.name, map[Kind]string{Relative: "relative change", Delta: "change"}[b.Kind], valueText(b, y))
		if t.level == "index" {
			if ix := after.Index(t.name); ix != nil && ix.Table != "" {
				v.Message += fmt.Sprintf(", or the table with %s%s[%s]", indexEntriesName, map[bool]string{true: "/op"}[b.PerOp], bare(ix.Table))
			}
		}
		v.Hints = hints(b, t, before, after)
		return v
	}
	if whyB == "" {
		v.Before = &x
	}
	if whyA == "" {
		v.After = &y
	}
	v.Exactness = result.Weaker(orExact(ex), orExact(ey))
	if whyA != "" || (b.Kind != Absolute && whyB != "") {
		v.Status = Unknown
		var parts []string
		if whyB != "" && b.Kind != Absolute {
			parts = append(parts, "before: "+whyB)
		}
		if whyA != "" {
			parts = append(parts, "after: "+whyA)
		}
		v.Message = "cannot evaluate: " + strings.Join(parts, "; ")
		return v
	}
	var c float64
	switch b.Kind {
	case Absolute:
		c = y
	case Delta:
		c = y - x
	case Relative:
		switch {
		case x == 0 && y == 0:
			c = 0
		case x == 0:
			// Growth from nothing is beyond any percentage: judged as
			// such, but no infinity is kept (JSON has none).
			c = math.Inf(sign(y))
		default:
			c = 100 * (y - x) / math.Abs(x)
		}
	}
	if compare(c, b.Cmp, b.Value) {
		v.Status = Pass
	} else {
		v.Status = Fail
	}
	if math.IsInf(c, 0) {
		v.Test = fmt.Sprintf("from 0 to %s, beyond any relative change, %s %s", valueText(b, y), b.Cmp, Format(b, b.Value))
	} else {
		v.Compared = &c
		v.Test = fmt.Sprintf("%s %s %s", Format(b, c), b.Cmp, Format(b, b.Value))
	}
	v.Message = v.Test + ": " + strings.ToUpper(string(v.Status))
	if v.Status == Fail {
		v.Hints = hints(b, t, before, after)
	}
	return v
}

func sign(y float64) int {
	if y < 0 {
		return -1
	}
	return 1
}

func orExact(e result.Exactness) result.Exactness {
	if e == "" {
		return result.Exact
	}
	return e
}

func unitOf(b Budget) string {
	switch {
	case b.Kind == Relative:
		return "%"
	case isRatio(b.Metric):
		return "fraction"
	case isBytes(b.Metric) && b.PerOp:
		return "bytes per operation"
	case isBytes(b.Metric):
		return "bytes"
	case b.PerOp:
		return "per operation"
	}
	return "count"
}

// Format shows a compared number or threshold in the budget's unit.
func Format(b Budget, v float64) string {
	switch {
	case math.IsInf(v, 0) || math.IsNaN(v):
		return "n/a"
	case b.Kind == Relative:
		return fmt.Sprintf("%+.2f%%", v)
	case isRatio(b.Metric) && b.Kind == Delta:
		return fmt.Sprintf("%+.1f pt", 100*v)
	case isRatio(b.Metric):
		return fmt.Sprintf("%.1f%%", 100*v)
	}
	// bytes, times and counts as every report writes them (result.FormatTotal),
	// counts per operation (and fractions) with three decimals
	s := result.FormatTotal(b.Metric, v)
	if i, _ := result.Lookup(b.Metric); !i.IsBytes() && (b.PerOp || v != math.Trunc(v)) {
		s = humanize.CommafWithDigits(v, 3)
		if i.Unit == result.Millis {
			s += " ms"
		}
	}
	if b.Kind == Delta && v >= 0 {
		s = "+" + s
	}
	return s
}

// valueText is a value of the budget's metric as a verdict shows it.
func valueText(b Budget, v float64) string {
	b.Kind = Absolute
	return Format(b, v)
}

// hints explain a failed verdict from what changed between the runs: the
// indexes present only after the migration, on the table (or the index itself).
func hints(b Budget, t target, before, after *result.Run) []string {
	var out []string
	switch t.level {
	case "table":
		for _, ix := range after.Indexes {
			if strings.EqualFold(ix.Table, t.name) && before.Index(ix.Name) == nil {
				out = append(out, "index "+ix.Name+" on "+ix.Table+" was added by the migration"+definition(ix))
			}
		}
		if isRatio(b.Metric) && strings.HasPrefix(b.Metric, "hot") && len(out) == 0 {
			if nh, ok := after.Table(t.name).Metrics["newpage_updates"]; ok && nh.OK() && nh.V() > 0 {
				out = append(out, fmt.Sprintf("%.0f updates moved the row to another page (no room on the page): a lower fillfactor keeps them HOT", nh.V()))
			}
		}
	case "index":
		if ix := after.Index(t.name); ix != nil && before.Index(t.name) == nil {
			out = append(out, "index "+ix.Name+" on "+ix.Table+" was added by the migration"+definition(*ix))
		}
	}
	return out
}

func definition(ix result.Object) string {
	if d := ix.Info["definition"]; d != "" {
		return ": " + d
	}
	return ""
}

// Summary counts verdicts by status; a verdict inside the spread of
// repetitions counts as within budget.
func Summary(vs []Verdict) (pass, fail, unknown int) {
	for _, v := range vs {
		switch v.Status {
		case Pass, Spread, New: // a change inside the spread, or of a new object, does not fail a check
			pass++
		case Fail:
			fail++
		default:
			unknown++
		}
	}
	return
}

// MarshalJSON leaves out a number that is not finite (JSON has no NaN or
// infinity, and one would abort the whole document): it reads as n/a.
func (v Verdict) MarshalJSON() ([]byte, error) {
	type plain Verdict
	p := plain(v)
	fin := func(f *float64) *float64 {
		if f == nil || math.IsInf(*f, 0) || math.IsNaN(*f) {
			return nil
		}
		return f
	}
	rng := func(r *[2]float64) *[2]float64 {
		if r == nil || fin(&r[0]) == nil || fin(&r[1]) == nil {
			return nil
		}
		return r
	}
	p.Before, p.After, p.Compared = fin(p.Before), fin(p.After), fin(p.Compared)
	p.BeforeRange, p.AfterRange = rng(p.BeforeRange), rng(p.AfterRange)
	return json.Marshal(p)
}
