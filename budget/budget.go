package budget

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/writeamp/writeamp/result"
)

// Kind is what a threshold compares.
type Kind string

const (
	Absolute Kind = "value"    // the after run's value
	Relative Kind = "relative" // (after - before) / |before|, in percent
	Delta    Kind = "change"   // after - before, in the metric's unit
)

// Budget is one parsed budget.
type Budget struct {
	Text   string  `json:"text"`
	Metric string  `json:"metric"`
	PerOp  bool    `json:"per_operation"`
	Object string  `json:"object,omitempty"`
	Cmp    string  `json:"comparison"`
	Kind   Kind    `json:"kind"`
	Value  float64 `json:"threshold"` // percent for Relative; the metric's unit otherwise
}

// Grammar is the one-line summary shown in errors and help.
const Grammar = `METRIC[/op][[OBJECT]] (<=|>=|<|>) THRESHOLD, THRESHOLD = +N% or -N% (relative change), +N or -N (absolute change), N (after value); a ratio such as hot_ratio is a fraction from 0 to 1 (0.9) or N% (90%), a byte metric such as log_bytes takes a size with its unit B/kB/KiB/MB/MiB/GB/GiB/TB/TiB (+50B, 2KiB; never a bare number)`

// Examples are valid budgets, for help texts and tests.
var Examples = []string{"log_bytes/op<=+5%", "hot_ratio>=0.9", "leaf_inserts/op[idx_name]<=+0%", "hot_ratio[jobs]>=-0.05", "log_bytes/op<=2KiB"}

// isRatio and isBytes ask the catalogue; a name it does not know is neither
// (CheckMetrics refuses it, naming the closest known ones).
func isRatio(metric string) bool { i, _ := result.Lookup(metric); return i.IsRatio() }
func isBytes(metric string) bool { i, _ := result.Lookup(metric); return i.IsBytes() }
func known(metric string) bool   { _, ok := result.Lookup(metric); return ok }

// Parse reads one budget. Errors say what is wrong and show the grammar.
func Parse(s string) (Budget, error) {
	b := Budget{Text: strings.TrimSpace(s)}
	fail := func(format string, a ...any) (Budget, error) {
		return Budget{}, fmt.Errorf("--budget %q: %s (grammar: %s; e.g. %s)", s, fmt.Sprintf(format, a...), Grammar, strings.Join(Examples[:3], ", "))
	}
	rest := b.Text
	// metric
	i := 0
	dot := false // one: the waits family (waits.writelog)
	for i < len(rest) && (rest[i] >= 'a' && rest[i] <= 'z' || rest[i] == '_' || (i > 0 && rest[i] >= '0' && rest[i] <= '9') ||
		(i > 0 && rest[i] == '.' && !dot && i+1 < len(rest) && (rest[i+1] >= 'a' && rest[i+1] <= 'z' || rest[i+1] >= '0' && rest[i+1] <= '9' || rest[i+1] == '_'))) {
		dot = dot || rest[i] == '.'
		i++
	}
	if i == 0 {
		return fail("it must start with a metric name in lower case (e.g. log_bytes, hot_ratio, leaf_inserts)")
	}
	b.Metric, rest = rest[:i], strings.TrimSpace(rest[i:])
	if strings.HasPrefix(rest, "/") {
		if !strings.HasPrefix(rest, "/op") {
			return fail("after %q only /op may follow (per operation)", b.Metric)
		}
		b.PerOp, rest = true, strings.TrimSpace(rest[3:])
	}
	if strings.HasPrefix(rest, "[") {
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return fail("missing ] after the object name")
		}
		b.Object = strings.TrimSpace(rest[1:end])
		if b.Object == "" || strings.ContainsAny(b.Object, "[] \t") {
			return fail("the object in [...] must be one table or index name")
		}
		rest = strings.TrimSpace(rest[end+1:])
	}
	switch {
	case strings.HasPrefix(rest, "<="), strings.HasPrefix(rest, ">="):
		b.Cmp, rest = rest[:2], rest[2:]
	case strings.HasPrefix(rest, "<"), strings.HasPrefix(rest, ">"):
		b.Cmp, rest = rest[:1], rest[1:]
	case rest == "":
		return fail("missing comparison and threshold")
	default:
		return fail("expected <=, >=, < or > after %q, found %q", b.Metric, rest)
	}
	rest = strings.TrimSpace(rest)
	if rest == "" {
		return fail("missing threshold after %s", b.Cmp)
	}
	signed := rest[0] == '+' || rest[0] == '-'
	// number, then an optional suffix
	j := 0
	if signed {
		j = 1
	}
	for j < len(rest) && (rest[j] >= '0' && rest[j] <= '9' || rest[j] == '.') {
		j++
	}
	numText, suffix := rest[:j], strings.TrimSpace(rest[j:])
	if numText == "" || numText == "+" || numText == "-" {
		return fail("the threshold must be a number (e.g. +5%%, 0.9)")
	}
	v, err := strconv.ParseFloat(numText, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return fail("cannot read the number %q", numText)
	}
	switch {
	case suffix == "%" && signed:
		b.Kind, b.Value = Relative, v
	case suffix == "%":
		if known(b.Metric) && !isRatio(b.Metric) {
			return fail("an unsigned percentage is a value and only fits a ratio (such as hot_ratio), not %s; for a relative change write +%s%%", b.Metric, numText)
		}
		b.Kind, b.Value = Absolute, v/100
	case suffix == "":
		b.Kind, b.Value = Absolute, v
		if signed {
			b.Kind = Delta
		}
		if isBytes(b.Metric) && v != 0 {
			// A bare number could be bytes, KiB or a count to its reader.
			return fail("%s is counted in bytes and a size needs its unit: write %s%sB (or KiB, MiB ...) for a size, or %s%s%% for a relative change", b.Metric, writtenSign(signed, numText), strings.TrimLeft(numText, "+-"), signOrPlus(numText), strings.TrimLeft(numText, "+-"))
		}
	default:
		f, err := result.ByteMultiplier(suffix)
		if err != nil {
			return fail("%v; relative change: %%", err)
		}
		if known(b.Metric) && !isBytes(b.Metric) {
			return fail("a byte unit (%s) only fits a metric counted in bytes (such as log_bytes), not %s", suffix, b.Metric)
		}
		if math.IsInf(v*f, 0) {
			return fail("the threshold %s%s is out of range", numText, suffix)
		}
		b.Kind, b.Value = Absolute, v*f
		if signed {
			b.Kind = Delta
		}
	}
	if isRatio(b.Metric) && b.Kind != Relative && math.Abs(b.Value) > 1 {
		// A ratio is a fraction of 0 to 1: 90 is most likely meant as 90%.
		if b.Kind == Delta {
			return fail("%s is a fraction from 0 to 1, so a change of %s is out of range: write %s%s for %s points", b.Metric, numText, signOrPlus(numText), fracText(v/100), strings.TrimLeft(numText, "+-"))
		}
		if suffix == "%" {
			return fail("%s is a fraction from 0 to 1: %s%% is above 100%%", b.Metric, numText)
		}
		return fail("%s is a fraction from 0 to 1, so %s is out of range: write %s (or %s%%)", b.Metric, numText, fracText(v/100), numText)
	}
	return b, nil
}

// writtenSign is the sign a signed threshold was written with, "" for an unsigned one.
func writtenSign(signed bool, numText string) string {
	if signed {
		return numText[:1]
	}
	return ""
}

// signOrPlus is the sign of numText, "+" when it has none.
func signOrPlus(numText string) string {
	if strings.HasPrefix(numText, "-") {
		return "-"
	}
	return "+"
}

func fracText(v float64) string { return strconv.FormatFloat(math.Abs(v), 'f', -1, 64) }

// ParseAll parses several budgets, stopping at the first error.
func ParseAll(ss []string) ([]Budget, error) {
	var out []Budget
	for _, s := range ss {
		b, err := Parse(s)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// Name is the budget's left side: metric[/op][[object]].
func (b Budget) Name() string {
	n := b.Metric
	if b.PerOp {
		n += "/op"
	}
	if b.Object != "" {
		n += "[" + b.Object + "]"
	}
	return n
}

// String is the canonical form; Parse(String()) gives the same budget.
func (b Budget) String() string {
	var t string
	switch b.Kind {
	case Relative:
		t = signedNum(b.Value) + "%"
	case Delta:
		t = signedNum(b.Value)
	default:
		t = strconv.FormatFloat(b.Value, 'f', -1, 64)
	}
	if isBytes(b.Metric) && b.Kind != Relative && b.Value != 0 {
		t += "B" // a size is written with its unit (Parse refuses one without)
	}
	return b.Name() + b.Cmp + t
}

func signedNum(v float64) string {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s
}

// Describe says in words what is compared, for the verdict table.
func (b Budget) Describe() string {
	what := b.Metric
	if b.PerOp {
		what += " per operation"
	}
	switch b.Kind {
	case Relative:
		return fmt.Sprintf("change of %s, after vs before, %s %s%%", what, b.Cmp, signedNum(b.Value))
	case Delta:
		return fmt.Sprintf("after minus before of %s %s %s", what, b.Cmp, signedNum(b.Value))
	}
	return fmt.Sprintf("%s after the migration %s %s", what, b.Cmp, strconv.FormatFloat(b.Value, 'g', -1, 64))
}

func compare(x float64, cmp string, y float64) bool {
	switch cmp {
	case "<=":
		return x <= y
	case ">=":
		return x >= y
	case "<":
		return x < y
	case ">":
		return x > y
	}
	return false
}
