package reports

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/result"
)

// group is the objects whose change is the same as shown (one finding).
type group struct {
	metric, level, table string
	a, b                 float64
	e                    result.Exactness
	rule                 string
	objects              []string
}

// Findings computes the findings of a comparison and the rule they follow.
func Findings(c *Comparison, res *result.Result) ([]result.Finding, string) {
	if len(c.Columns) == 0 {
		return nil, ""
	}
	if len(c.Columns) == 1 {
		return costFindings(c, res), "rule: a single run: its largest costs" + perUnit(c) + " and where they go, in a fixed order (log, index entries, HOT updates)"
	}
	if copiesOf(c) {
		out := costFindings(c, res)
		for _, f := range copyFindings(c) {
			f.Kind, f.Rank, f.Unit = "cost", len(out)+1, unitOf(c, f.Metric)
			f.Rule = "one window on a server and its copies: the server's largest costs, then each copy's log and what it received"
			out = append(out, f)
		}
		return out, "rule: one window on " + c.Columns[0].Label + " and its copies (--node), not variants: its largest costs" + perUnit(c) + " in a fixed order (log, index entries, HOT updates), then what each copy wrote and received, and the cluster's log"
	}
	last := len(c.Columns) - 1
	from, to := c.Columns[0].Label, c.Columns[last].Label
	same, why := sameWork(res, c.Columns[0].Run, c.Columns[last].Run)
	spread := repetitionSpread(c)
	totals := map[string]*[2]float64{}
	var groups []*group
	byKey := map[string]*group{}
	var presence []result.Finding
	for si, sec := range c.Sections {
		for _, r := range sec.Rows {
			if !judged(r.Metric, sec.Kind) {
				continue
			}
			ca, cb := r.Cells[0], r.Cells[last]
			va, okA := value(c, r.Metric, ca)
			vb, okB := value(c, r.Metric, cb)
			if totals[r.Metric] == nil {
				totals[r.Metric] = &[2]float64{}
			}
			if okA {
				totals[r.Metric][0] += va
			}
			if okB {
				totals[r.Metric][1] += vb
			}
			if ca.Present != cb.Present && (r.Metric == result.LeafInserts.Name || r.Metric == result.RowsUpdated.Name) {
				presence = append(presence, presenceFinding(c, sec, r, ca.Present, va+vb, okA || okB, from, to))
				continue
			}
			if !okA || !okB {
				continue
			}
			e := result.Weaker(ca.Metric.Exactness, cb.Metric.Exactness)
			ok, rule := beyondNoise(r.Metric, va, vb, e, same, spread[fmt.Sprint(si, r.Metric)])
			if !ok {
				continue
			}
			sa, sb := fmtPair(c, r.Metric, va, vb)
			k := strings.Join([]string{r.Metric, sec.Kind, sec.Table, sa, sb, string(e), rule}, "\x00")
			g := byKey[k]
			if g == nil {
				g = &group{metric: r.Metric, level: sec.Kind, table: sec.Table, a: va, b: vb, e: e, rule: rule}
				byKey[k] = g
				groups = append(groups, g)
			}
			g.objects = append(g.objects, sec.Object)
		}
	}
	var out []result.Finding
	for _, g := range groups {
		out = append(out, changeFinding(c, res.Server.Dialect, g, totals[g.metric], from, to))
	}
	// presence effects are shares of their metric's total, known only now
	for _, p := range presence {
		if t := totals[p.Metric]; t != nil && p.Effect > 0 {
			p.Effect = math.Min(1, p.Effect/math.Max(t[0], t[1]))
		}
		out = append(out, p)
	}
	if f, ok := latencyFinding(c, from, to, spread[result.DriverLatency.Name]); ok {
		out = append(out, f)
	}
	if len(out) == 0 {
		out = append(out, result.Finding{Kind: "none", From: from, To: to, Exactness: result.Exact,
			Text: fmt.Sprintf("no change beyond noise between %s and %s", from, to), Rule: noiseRule(same, why)})
	}
	rankFindings(out)
	out = inScopeHeadline(c, res.Server.Dialect, out)
	// Not a change: where each variant's log goes, after the changes.
	if f, ok := operationFinding(c, res.Server.Dialect); ok {
		f.Rank, f.From, f.To = len(out)+1, from, to
		out = append(out, f)
	}
	return out, noiseRule(same, why)
}

func changeFinding(c *Comparison, dialect string, g *group, total *[2]float64, from, to string) result.Finding {
	f := result.Finding{Kind: "change", Metric: g.metric, Level: g.level, Objects: g.objects, Unit: unitOf(c, g.metric),
		From: from, To: to, Before: ptr(g.a), After: ptr(g.b), Exactness: g.e, Rule: g.rule}
	where := ""
	switch {
	case g.level == "database":
		f.Object, f.Objects = "database", nil
	case g.level == "index" && len(g.objects) == 1:
		f.Object = g.objects[0]
		where = " on " + g.objects[0] + ofTable(g.table)
	case g.level == "index":
		f.Object = fmt.Sprintf("%d indexes%s", len(g.objects), ofTable(g.table))
		where = fmt.Sprintf(" on each of %d indexes%s", len(g.objects), ofTable(g.table))
	case len(g.objects) == 1:
		f.Object = g.objects[0]
		where = " on " + g.objects[0]
	default:
		f.Object = strings.Join(g.objects, ", ")
		where = fmt.Sprintf(" on each of %d tables (%s)", len(g.objects), f.Object)
	}
	d := g.b - g.a
	if isRatio(g.metric) {
		f.Change, f.ChangeUnit, f.Effect = ptr(100*d), "points", math.Min(1, math.Abs(d))
		name := labelOf(g.metric)
		if g.metric == result.HotRatio.Name {
			name = "HOT updates"
		}
		sa, sb := fmtPair(c, g.metric, g.a, g.b)
		pt := fmt.Sprintf("%+.1f", 100*d)
		if math.Abs(100*d) < 0.05 {
			pt = fmt.Sprintf("%+.2f", 100*d)
		}
		f.Text = fmt.Sprintf("%s %s → %s%s (%s pt%s)", name, sa, sb, where, pt, exactnessWords(g.e))
		return f
	}
	if g.a != 0 {
		f.Change, f.ChangeUnit = ptr(100*d/math.Abs(g.a)), "percent"
	}
	den := math.Max(math.Abs(g.a), math.Abs(g.b))
	if g.level != "database" && total != nil {
		den = math.Max(total[0], total[1])
	}
	if den > 0 {
		f.Effect = math.Min(1, float64(max(1, len(g.objects)))*math.Abs(d)/den)
	}
	va, vb := fmtPair(c, g.metric, g.a, g.b)
	if g.level == "database" {
		name := dialects.LogName(dialect)
		if g.metric != result.LogBytes.Name {
			name = strings.TrimSpace(labelOf(g.metric))
		}
		f.Text = fmt.Sprintf("%s%s %s (%s → %s%s)", name, perUnit(c), changeText(g.a, g.b), va, vb, exactnessWords(g.e))
		return f
	}
	sp := spec(g.metric)
	v := [2]string{sp.Verb, sp.Noun}
	switch {
	case g.a == 0:
		f.Text = fmt.Sprintf("%s %s %s%s where %s had none (0 → %s%s%s)", to, v[0], v[1], perUnit(c), from, vb, where, exactnessWords(g.e))
	default:
		more := "more"
		if d < 0 {
			more = "fewer"
		}
		f.Text = fmt.Sprintf("%s %s %.1f%% %s %s%s (%s → %s%s%s)", to, v[0], math.Abs(*f.Change), more, v[1], perUnit(c), va, vb, where, exactnessWords(g.e))
	}
	return f
}

func changeText(a, b float64) string {
	if a == 0 {
		return "new"
	}
	return fmt.Sprintf("%+.1f%%", 100*(b-a)/math.Abs(a))
}

func ofTable(t string) string {
	if t == "" {
		return ""
	}
	return " of " + t
}

// presenceFinding: an index (or table) that exists in one of the two runs
// only, e.g. an index the migration drops. Its effect is its share of the
// metric's total, set by the caller.
func presenceFinding(c *Comparison, sec Section, r Row, inFirst bool, v float64, ok bool, from, to string) result.Finding {
	what := "index " + sec.Object + ofTable(sec.Table)
	noun := "index entries"
	if sec.Kind == "table" {
		what, noun = "table "+sec.Object, "rows updated"
	}
	f := result.Finding{Kind: "added", Metric: r.Metric, Level: sec.Kind, Object: sec.Object, Objects: []string{sec.Object},
		Unit: unitOf(c, r.Metric), From: from, To: to, Exactness: result.Exact, Rule: "an object in one run only: always a finding"}
	cost := ""
	if ok {
		cost = fmt.Sprintf("%s %s%s", fmtVal(c, r.Metric, v), noun, perUnit(c))
		f.Effect, f.Exactness = v, r.Cells[map[bool]int{true: 0, false: len(r.Cells) - 1}[inFirst]].Metric.Exactness
		if inFirst {
			f.Before = ptr(v)
		} else {
			f.After = ptr(v)
		}
	}
	switch {
	case inFirst && ok:
		f.Kind, f.Text = "removed", fmt.Sprintf("%s exists only in %s (%s there%s)", what, from, cost, exactnessWords(f.Exactness))
	case inFirst:
		f.Kind, f.Text = "removed", fmt.Sprintf("%s exists only in %s", what, from)
	case ok:
		f.Text = fmt.Sprintf("%s is new in %s (%s%s)", what, to, cost, exactnessWords(f.Exactness))
	default:
		f.Text = fmt.Sprintf("%s is new in %s", what, to)
	}
	return f
}

// latencyFinding: the main operation's p95 latency, beyond ±25%.
func latencyFinding(c *Comparison, from, to string, spread float64) (result.Finding, bool) {
	op := c.PerOp
	la, okA := c.Columns[0].Run.LatencyMS[op]
	lb, okB := c.Columns[len(c.Columns)-1].Run.LatencyMS[op]
	if op == "" || !okA || !okB || la.P95 <= 0 {
		return result.Finding{}, false
	}
	ok, rule := beyondNoise(result.DriverLatency.Name, la.P95, lb.P95, result.Approx, false, spread)
	if !ok {
		return result.Finding{}, false
	}
	d := 100 * (lb.P95 - la.P95) / la.P95
	return result.Finding{Kind: "change", Metric: result.DriverLatency.Name, Level: "run", Object: op + " p95", Unit: "ms", From: from, To: to,
		Before: ptr(la.P95), After: ptr(lb.P95), Change: ptr(d), ChangeUnit: "percent",
		Effect: math.Abs(lb.P95-la.P95) / math.Max(la.P95, lb.P95), Exactness: result.Approx, Rule: rule,
		Text: fmt.Sprintf("%s p95 latency %+.1f%% (%.3f → %.3f ms; approx: the driver's HdrHistogram)", op, d, la.P95, lb.P95)}, true
}

// repetitionSpread: where the comparison holds repetitions of one run (the
// same variant, workers and operations, e.g. the same run saved twice), the
// largest relative difference between them per section and metric, and for
// latency under result.DriverLatency's name. Changes within it are noise.
func repetitionSpread(c *Comparison) map[string]float64 {
	out := map[string]float64{}
	reps := map[string][]int{}
	for i, col := range c.Columns {
		k := fmt.Sprint(col.Run.Variant, "/", col.Run.Concurrency, "/", col.Run.Operations)
		reps[k] = append(reps[k], i)
	}
	spreadOf := func(vs []float64) float64 {
		if len(vs) < 2 {
			return 0
		}
		lo, hi := vs[0], vs[0]
		for _, v := range vs {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		if hi == 0 {
			return 0
		}
		return (hi - lo) / math.Abs(hi)
	}
	for _, idx := range reps {
		if len(idx) < 2 {
			continue
		}
		for si, sec := range c.Sections {
			for _, r := range sec.Rows {
				var vs []float64
				for _, i := range idx {
					if v, ok := value(c, r.Metric, r.Cells[i]); ok {
						vs = append(vs, v)
					}
				}
				k := fmt.Sprint(si, r.Metric)
				if isRatio(r.Metric) {
					if len(vs) > 1 {
						sort.Float64s(vs)
						out[k] = math.Max(out[k], vs[len(vs)-1]-vs[0])
					}
					continue
				}
				out[k] = math.Max(out[k], spreadOf(vs))
			}
		}
		var ls []float64
		for _, i := range idx {
			if l, ok := c.Columns[i].Run.LatencyMS[c.PerOp]; ok {
				ls = append(ls, l.P95)
			}
		}
		out[result.DriverLatency.Name] = math.Max(out[result.DriverLatency.Name], spreadOf(ls))
	}
	return out
}
