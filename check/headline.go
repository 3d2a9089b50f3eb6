package check

import (
	"fmt"

	"github.com/writeamp/writeamp/budget"
)

// VerdictWord is the one-word outcome of a check.
func (o *Outcome) VerdictWord() string {
	switch o.Exit() {
	case ExitPass:
		return "PASS"
	case ExitBudget:
		return "FAIL"
	case ExitNotAsItWas:
		return "NOT-AS-IT-WAS"
	}
	return "UNKNOWN"
}

// Headline is the one line that sums a check up.
func (o *Outcome) Headline() string {
	p, f, u := budget.Summary(o.Verdicts)
	spread, fresh := 0, 0
	for _, v := range o.Verdicts {
		switch v.Status {
		case budget.Spread:
			spread++
		case budget.New:
			fresh++
		}
	}
	s := fmt.Sprintf("writeamp check: %s — %d within budget, %d exceeded", o.VerdictWord(), p-spread-fresh, f)
	if spread > 0 {
		s += fmt.Sprintf(", %d exceeded on the medians but inside the spread of the repetitions", spread)
	}
	if fresh > 0 {
		s += fmt.Sprintf(", %d on objects new after the migration (no before to compare)", fresh)
	}
	if u > 0 {
		s += fmt.Sprintf(", %d could not be evaluated", u)
	}
	if n := len(o.Verdicts) - len(o.enforced()); n > 0 {
		s += fmt.Sprintf(" (%d of them advisory: reported, not failing)", n)
	}
	if len(o.Verdicts) == 0 {
		s = "writeamp check: " + o.VerdictWord() + " — no budgets given (--report-only: measured only)"
	}
	if !o.Restore.OK() {
		s += "; the database is NOT as it was (see restore)"
	}
	return s
}
