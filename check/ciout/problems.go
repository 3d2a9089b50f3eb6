package ciout

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/writeamp/writeamp/budget"
	"github.com/writeamp/writeamp/check"
	"github.com/writeamp/writeamp/sqlparse"
)

// Rules of the findings that leave check for CI (annotations, SARIF).
const (
	RuleBudgetExceeded    = "budget-exceeded"
	RuleBudgetUnevaluated = "budget-unevaluated"
)

// Problem is one finding at a place in the migration: a failed budget, a
// budget that could not be evaluated, or a static warning.
type Problem struct {
	Rule  string
	Level string // error, warning (GitHub's and SARIF's words)
	Path  string // the migration file, as named on the command line
	Line  int    // 1-based, the statement's first line
	Title string
	Text  string
	// Suppressed: a suppression silenced it (SARIF lists it as suppressed;
	// no annotation is written).
	Suppressed *check.Suppression
}

// Problems lists what CI should show at the migration's lines: each failed
// or unevaluated budget, at the statement that most plausibly caused it,
// and each static warning at the index's statement.
func Problems(o *check.Outcome) []Problem {
	var out []Problem
	for _, v := range o.Verdicts {
		var p Problem
		switch v.Status {
		case budget.Fail:
			p = Problem{Rule: RuleBudgetExceeded, Level: "error", Title: "writeamp budget exceeded: " + v.Budget + " on " + where(v)}
		case budget.Unknown:
			p = Problem{Rule: RuleBudgetUnevaluated, Level: "error", Title: "writeamp budget not evaluated: " + v.Budget + " on " + where(v)}
		default:
			continue
		}
		if o.Advisory[v.Budget] {
			p.Level = "warning"
		}
		p.Text = strings.Join(append([]string{v.Message}, v.Hints...), "\n")
		p.Path, p.Line = locate(o, v)
		out = append(out, p)
	}
	for _, ws := range [][]check.Warning{o.Static, o.Suppressed} {
		for _, w := range ws {
			out = append(out, Problem{Rule: check.RuleIndexOnUpdatedColumn, Level: "warning", Path: w.IndexSource, Line: w.Line,
				Title: fmt.Sprintf("writeamp: index %s covers %s.%s, which the workload updates", w.Index, w.Table, w.Column),
				Text:  w.Text, Suppressed: w.Suppressed})
		}
	}
	return out
}

// locate finds the migration statement a verdict points at: for an index,
// the statement creating it; for a table, the first index the migration
// creates on it, else the first statement naming the table; otherwise (a
// database-wide budget, or an object no statement names) the first
// statement of the migration.
func locate(o *check.Outcome, v budget.Verdict) (string, int) {
	name := v.Object
	if i := strings.LastIndex(name, "."); i >= 0 {
		name = name[i+1:]
	}
	if name != "" {
		for _, f := range o.Migration {
			for _, ix := range sqlparse.Indexes(o.Dialect, f.Statements) {
				if (v.Level == "index" && strings.EqualFold(ix.Name, name)) || (v.Level == "table" && strings.EqualFold(ix.Table, name)) {
					return f.Path, ix.Line
				}
			}
		}
		word := regexp.MustCompile(`(?i)(^|[^\w$])` + regexp.QuoteMeta(name) + `($|[^\w$])`)
		for _, f := range o.Migration {
			for _, st := range f.Statements {
				if word.MatchString(st.Text) {
					return f.Path, st.Line
				}
			}
		}
	}
	for _, f := range o.Migration {
		if len(f.Statements) > 0 {
			return f.Path, f.Statements[0].Line
		}
	}
	if len(o.Migration) > 0 {
		return o.Migration[0].Path, 1
	}
	return "", 0
}
