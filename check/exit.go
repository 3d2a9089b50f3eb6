package check

import (
	"errors"
	"fmt"

	"github.com/writeamp/writeamp/budget"
	"github.com/writeamp/writeamp/check/restore"
	"github.com/writeamp/writeamp/result"
)

// The exit codes of `writeamp check`, defined once: the CLI, the README's
// table, the JUnit report and the step summary all name these. When several
// apply, the more severe (the higher) wins: a database that is not as it
// was outranks a check that could not measure, which outranks a budget.
const (
	// ExitPass: every budget held (or was inside the spread) and the
	// database is as it was.
	ExitPass = 0
	// ExitBudget: a budget was exceeded.
	ExitBudget = 1
	// ExitBadInput: bad input, or the check could not measure (a failing
	// migration or command, a migration left inside an open transaction, a
	// counter reset inside a window, a budget that could not be evaluated,
	// an output that could not be written).
	ExitBadInput = 2
	// ExitNotAsItWas: the database is not as it was before check: the
	// restore was refused (it would have destroyed what the migration did
	// not create), failed, or could not be proved.
	ExitNotAsItWas = restore.ExitNotAsItWas
)

// ExitCodes is the exit-code table as --help, the report and the JUnit
// output print it.
const ExitCodes = "exit codes: 0 pass; 1 a budget exceeded; 2 bad input or could not measure; 3 the database is not as it was (restore refused, failed or unproven)"

// ExitError is a check that did not pass, with its documented exit code
// (ExitBudget, ExitBadInput, ExitNotAsItWas).
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// ExitCode is the process's exit status for this error.
func (e *ExitError) ExitCode() int { return e.Code }

// ExitWith is the exit code of a check that ended with runErr (nil: it
// measured): could not measure is ExitBadInput, unless the restore is worse.
func (o *Outcome) ExitWith(runErr error) int {
	if runErr == nil {
		return o.Exit()
	}
	code := ExitBadInput
	var pe *restore.PendingError
	if !o.Restore.OK() || errors.As(runErr, &pe) {
		code = ExitNotAsItWas
	}
	return code
}

// worse is the more severe of two exit codes.
func worse(a, b int) int {
	if b > a {
		return b
	}
	return a
}

// resetRefusal makes a side whose window saw counters reset (a statistics
// reset, a server restart or failover) "could not measure": its figures
// miss what happened before the reset, so a verdict on them could pass a
// migration it never measured whole.
func resetRefusal(label string, run *result.Run) error {
	if len(run.Resets) == 0 {
		return nil
	}
	return measureErr(label, fmt.Errorf("%d counters were reset during the window (a statistics reset, a server restart or a failover), e.g. %s: this side is not compared; run check again", len(run.Resets), run.Resets[0]))
}

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
