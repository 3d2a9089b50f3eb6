package reports

import (
	"fmt"
	"math"
	"strings"

	"github.com/dustin/go-humanize"
)

func labelOf(name string) string {
	if l, ok := labels[name]; ok {
		return l
	}
	return strings.ReplaceAll(name, "_", " ")
}

func isRatio(name string) bool   { return strings.HasSuffix(name, "_ratio") }
func isAutovac(name string) bool { return strings.HasSuffix(name, "vacuum_runs") }
func isBytes(name string) bool   { return strings.Contains(name, "bytes") }

func formatValue(name string, v float64) string {
	switch {
	case isRatio(name):
		return fmt.Sprintf("%.1f%%", 100*v)
	case isBytes(name) && math.Abs(v) >= 10*1024:
		return humanize.IBytes(uint64(math.Abs(v))) + sign(v)
	case v == math.Trunc(v):
		return humanize.Comma(int64(v))
	default:
		return humanize.CommafWithDigits(v, 2)
	}
}

func sign(v float64) string {
	if v < 0 {
		return " (shrank)"
	}
	return ""
}

func formatPerOp(name string, v float64) string {
	switch {
	case isBytes(name):
		return humanize.CommafWithDigits(v, 1) + " B"
	case math.Abs(v) >= 100:
		return humanize.CommafWithDigits(v, 0)
	default:
		return humanize.CommafWithDigits(v, 3)
	}
}
