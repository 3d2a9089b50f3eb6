package capacity

import (
	"fmt"
	"math"
	"strings"

	"github.com/writeamp/writeamp/result"
)

// rowOps are the --rate operation names that count rows changed.
var rowOps = map[string]bool{"rows": true, "row": true, "rows_changed": true, "rows-changed": true}

// perRow says whether a projection counts rows changed: asked for with
// --rate rows=N/s, or the only unit a result without operation counts has
// (a measure without --operations, a diff).
func perRow(res *result.Result, rate Rate) bool {
	if rowOps[strings.ToLower(rate.Op)] {
		return true
	}
	return rate.Op == "" && !hasOperations(res)
}

func hasOperations(res *result.Result) bool {
	for i := range res.Runs {
		if _, n := res.Runs[i].Main(); n <= 0 {
			return false
		}
	}
	return true
}

// denominator is what one unit of the rate is in a run: its count of the
// rate's operation, or the rows it changed (and where they were counted).
func denominator(r *result.Run, label string, rate Rate, rows bool) (op string, n float64, scope string, err error) {
	if rows {
		n, ok := r.TableRowsChanged()
		scope = "in the measured tables"
		if !ok || n <= 0 {
			n, ok = r.ServerRowsChanged()
			scope = "by the whole server"
		}
		if !ok || n <= 0 {
			return "", 0, "", fmt.Errorf("run %s changed no rows writeamp could count (rows inserted, updated and deleted): there is nothing to scale per row; measure with --operations N and give --rate N/s", label)
		}
		return "rows changed", n, scope, nil
	}
	op = rate.Op
	if op == "" {
		op = r.MainOperation
	}
	if len(r.Operations) == 0 {
		return "", 0, "", fmt.Errorf("--rate %s: run %s has no operation counts (measured without --operations): give the rate in rows changed, e.g. --rate rows=2000/s, or measure again with --operations N", rate.Text, label)
	}
	if op == "" {
		return "", 0, "", fmt.Errorf("run %s has no main operation: name one in --rate, e.g. %s=500/s (operations: %s), or rows=500/s", label, firstOp(r), strings.Join(opNames(r), ", "))
	}
	c, ok := r.Operations[op]
	if !ok || c <= 0 {
		return "", 0, "", fmt.Errorf("--rate: run %s has no %q operations (it has: %s; or give rows=N/s)", label, op, strings.Join(opNames(r), ", "))
	}
	return op, float64(c), "", nil
}

// rateAssumptions say what the rate counts.
func rateAssumptions(res *result.Result, p *Plan, scopes, mix []string) []string {
	var out []string
	rate := p.Rate.String()
	if p.PerRow {
		s := "the rate counts rows changed (rows inserted + updated + deleted " + strings.Join(scopes, ", or ") + ", as measured), and every figure is scaled per row changed"
		for _, sc := range scopes {
			if sc == "by the whole server" {
				s += "; this server counts rows only server-wide, so other databases' and sessions' rows are in the denominator"
			}
		}
		out = append(out, s)
		if !hasOperations(res) {
			out = append(out, "this result has no operation count (measure without --operations, or a diff): for figures per operation (per transaction, per request), measure again with --operations N --operation-name NAME and give --rate NAME=N/s")
		}
		if len(mix) > 0 {
			out = append(out, fmt.Sprintf("the measured operations scale with it (at %s: %s)", rate, strings.Join(mix, ", ")))
		}
		return out
	}
	s := "the rate counts " + p.Variants[0].Op
	if len(mix) > 0 {
		s += fmt.Sprintf("; the other operations keep the measured mix (at %s: %s)", rate, strings.Join(mix, ", "))
	}
	return append(out, s)
}

// Validate refuses a result whose numbers no writeamp run produces: a
// negative or non-finite operation count, elapsed time or metric where the
// catalogue says it cannot be one (result.Validate; result.Read applies it
// to every file). A counter that went down is a reset, which writeamp
// writes as unavailable, never as a negative number.
func Validate(res *result.Result) error {
	if err := res.Validate(); err != nil {
		return fmt.Errorf("not a result writeamp wrote: %w", err)
	}
	return nil
}

// maxRates bounds --rate's list: one column per rate and variant.
const maxRates = 8

// ParseRates reads one rate or several separated by commas
// ("100/s,500/s,2000/s"); all count the same operation.
func ParseRates(s string) ([]Rate, error) {
	parts := strings.Split(s, ",")
	if len(parts) > maxRates {
		return nil, fmt.Errorf("--rate %q: %d rates; at most %d (one column each)", s, len(parts), maxRates)
	}
	var out []Rate
	for i, part := range parts {
		if strings.TrimSpace(part) == "" {
			return nil, fmt.Errorf("--rate %q: an empty rate between commas (expected %s, several separated by commas)", s, RateGrammar)
		}
		r, err := ParseRate(part)
		if err != nil {
			if i+1 < len(parts) && digits(strings.TrimSpace(part)) && len(parts[i+1]) >= 3 && digits(parts[i+1][:3]) {
				return nil, fmt.Errorf("--rate %q: commas separate rates; write 1000/s or 1k/s, not 1,000/s", s)
			}
			return nil, err
		}
		if len(out) > 0 && !strings.EqualFold(r.Op, out[0].Op) {
			return nil, fmt.Errorf("--rate %q: every rate must count the same operation (%q and %q)", s, out[0].Op, r.Op)
		}
		out = append(out, r)
	}
	return out, nil
}

func digits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// ProjectRates projects at each rate; the plan is the first rate's, with
// every rate's variants in AtRates when there are several.
func ProjectRates(res *result.Result, rates []Rate, ceilings []Ceiling) (*Plan, error) {
	if len(rates) == 0 {
		return nil, fmt.Errorf("--rate: no rate given")
	}
	p, err := Project(res, rates[0], ceilings)
	if err != nil || len(rates) == 1 {
		return p, err
	}
	for _, r := range rates {
		q, err := Project(res, r, ceilings)
		if err != nil {
			return nil, err
		}
		p.AtRates = append(p.AtRates, AtRate{Rate: q.Rate, RateText: r.Text, Variants: q.Variants, Savings: q.Savings})
	}
	p.Assumptions = append(p.Assumptions, "several rates: one column per rate; where a ceiling is reached does not depend on the rate, only on the log bytes per "+singular(p.Variants[0].Op))
	return p, nil
}

// overflow refuses a projection that no longer is a finite number.
func overflow(vp VariantPlan, rate Rate) error {
	for _, f := range []Figure{vp.LogBytes, vp.LeafInserts, vp.RowsChanged} {
		if f.OK && (math.IsInf(f.PerSecond, 0) || math.IsNaN(f.PerSecond)) {
			return fmt.Errorf("--rate %s: %s at this rate is out of range", rate.Text, f.Source)
		}
	}
	return nil
}
