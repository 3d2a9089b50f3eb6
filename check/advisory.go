package check

import (
	"github.com/writeamp/writeamp/budget"
)

// advisorySet keys advisory budgets by their canonical text, as verdicts
// name them.
func advisorySet(texts []string) (map[string]bool, error) {
	bs, err := budget.ParseAll(texts)
	if err != nil {
		return nil, err
	}
	m := map[string]bool{}
	for _, b := range bs {
		m[b.String()] = true
	}
	return m, nil
}

// advise marks the verdicts of an advisory budget: they keep their status
// (a failure is still shown as one) but do not count in Exit.
func (o *Outcome) advise(advisory bool, vs []budget.Verdict) []budget.Verdict {
	if !advisory {
		return vs
	}
	if o.Advisory == nil {
		o.Advisory = map[string]bool{}
	}
	for i := range vs {
		o.Advisory[vs[i].Budget] = true
		if vs[i].Status != budget.Pass {
			vs[i].Message += " (advisory: does not fail the check)"
		}
	}
	return vs
}

// enforced are the verdicts that decide the exit code.
func (o *Outcome) enforced() []budget.Verdict {
	var out []budget.Verdict
	for _, v := range o.Verdicts {
		if !o.Advisory[v.Budget] {
			out = append(out, v)
		}
	}
	return out
}
