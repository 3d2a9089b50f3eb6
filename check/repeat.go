package check

import (
	"fmt"
	"sort"
	"strings"

	"github.com/writeamp/writeamp/budget"
	"github.com/writeamp/writeamp/result"
)

// Repetitions are the runs of each side of a check --repeat N, in the
// order measured (before i and after i were measured one after the other).
type Repetitions struct {
	Before []*result.Run `json:"before"`
	After  []*result.Run `json:"after"`
}

// median of xs (the mean of the middle two for an even count).
func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// medianRun is one run whose every counter is the median of that counter
// over the repetitions (operation counts too, so /op is per operation of
// the median count). A median of an odd number of exact counts is one of
// them, still exact; of an even number it is a mean, derived.
func medianRun(label string, runs []*result.Run) (*result.Run, error) {
	out, err := runs[0].Clone()
	if err != nil {
		return nil, err
	}
	out.Label = label
	derived := len(runs)%2 == 0
	merge := func(m result.Metric, get func(*result.Run) (result.Metric, bool)) result.Metric {
		if !m.OK() {
			return m
		}
		var xs []float64
		for _, r := range runs {
			if x, ok := get(r); ok && x.OK() {
				xs = append(xs, x.V())
			}
		}
		if len(xs) < 2 {
			return m
		}
		v := median(xs)
		m.Value = &v
		if derived {
			m.Exactness = result.Weaker(m.Exactness, result.Derived)
		}
		lo, hi := xs[0], xs[0]
		for _, x := range xs {
			lo, hi = min(lo, x), max(hi, x)
		}
		m.Note = strings.TrimPrefix(m.Note+fmt.Sprintf("; median of %d repetitions (%g to %g)", len(xs), lo, hi), "; ")
		return m
	}
	for k, m := range out.Database {
		out.Database[k] = merge(m, func(r *result.Run) (result.Metric, bool) { x, ok := r.Database[k]; return x, ok })
	}
	for _, objs := range []struct {
		list []result.Object
		find func(*result.Run, string) *result.Object
	}{{out.Tables, (*result.Run).Table}, {out.Indexes, (*result.Run).Index}} {
		for i := range objs.list {
			o := &objs.list[i]
			for k, m := range o.Metrics {
				o.Metrics[k] = merge(m, func(r *result.Run) (result.Metric, bool) {
					if x := objs.find(r, o.Name); x != nil {
						m, ok := x.Metrics[k]
						return m, ok
					}
					return result.Metric{}, false
				})
			}
		}
	}
	for op := range out.Operations {
		var xs []float64
		for _, r := range runs {
			xs = append(xs, float64(r.Operations[op]))
		}
		out.Operations[op] = int64(median(xs) + 0.5)
	}
	for op, per := range out.PerOperation {
		for k := range per {
			var xs []float64
			for _, r := range runs {
				if v, ok := r.PerOperation[op][k]; ok {
					xs = append(xs, v)
				}
			}
			per[k] = median(xs)
		}
	}
	var el []float64
	for _, r := range runs {
		el = append(el, r.ElapsedSeconds)
	}
	out.ElapsedSeconds = median(el)
	return out, nil
}

// judge adds the spread of the repetitions to the verdicts the medians
// got, and turns a failure whose change lies inside that spread into
// budget.Spread: before and after overlap (relative and absolute changes),
// or a repetition of the after side is within the budget (an after value).
func (rp *Repetitions) judge(b budget.Budget, vs []budget.Verdict) []budget.Verdict {
	type span struct{ before, after []float64 }
	spans := map[string]*span{}
	for i := range rp.Before {
		for _, v := range budget.Evaluate(b, rp.Before[i], rp.After[i]) {
			k := v.Level + "/" + v.Object
			if spans[k] == nil {
				spans[k] = &span{}
			}
			if v.Before != nil {
				spans[k].before = append(spans[k].before, *v.Before)
			}
			if v.After != nil {
				spans[k].after = append(spans[k].after, *v.After)
			}
		}
	}
	rng := func(xs []float64) *[2]float64 {
		if len(xs) == 0 {
			return nil
		}
		r := [2]float64{xs[0], xs[0]}
		for _, x := range xs {
			r[0], r[1] = min(r[0], x), max(r[1], x)
		}
		return &r
	}
	for i := range vs {
		v := &vs[i]
		sp := spans[v.Level+"/"+v.Object]
		if sp == nil {
			continue
		}
		v.BeforeRange, v.AfterRange = rng(sp.before), rng(sp.after)
		if v.Status != budget.Fail || v.AfterRange == nil {
			continue
		}
		inside := false
		if b.Kind == budget.Absolute {
			for _, a := range sp.after {
				inside = inside || b.Holds(a)
			}
		} else if v.BeforeRange != nil {
			inside = max(v.BeforeRange[0], v.AfterRange[0]) <= min(v.BeforeRange[1], v.AfterRange[1])
		}
		if inside {
			v.Status = budget.Spread
			v.Message = fmt.Sprintf("%s on the medians, but inside the spread of %d repetitions (before %s, after %s): not told apart from noise",
				v.Test, len(rp.Before), fmtRange(b, v.BeforeRange), fmtRange(b, v.AfterRange))
		}
	}
	return vs
}

func fmtRange(b budget.Budget, r *[2]float64) string {
	if r == nil {
		return "n/a"
	}
	bb := b
	bb.Kind = budget.Absolute
	return budget.Format(bb, r[0]) + " to " + budget.Format(bb, r[1])
}
