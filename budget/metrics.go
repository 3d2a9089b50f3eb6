package budget

import (
	"fmt"
	"sort"
	"strings"

	"github.com/writeamp/writeamp/result"
)

// CheckMetrics refuses budgets whose metric the catalogue (result.Lookup)
// does not know, naming the closest known names, so a typo fails before the
// measurement instead of after both. Whether a metric exists on the server
// measured is known only after.
func CheckMetrics(bs []Budget) error {
	for _, b := range bs {
		if known(b.Metric) {
			continue
		}
		return fmt.Errorf("--budget %q: unknown metric %q%s (metrics are those of the result JSON, e.g. log_bytes, hot_ratio, leaf_inserts, or a wait event %s<event>)", b.Text, b.Metric, closest(b.Metric), result.WaitsPrefix)
	}
	return nil
}

// closest suggests known names sharing the unknown one's first word, or
// within a small edit distance.
func closest(s string) string {
	var out []string
	first, _, _ := strings.Cut(s, "_")
	for _, n := range result.Names() {
		if d := Distance(s, n); d <= 2 || strings.HasPrefix(n, first+"_") {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return ""
	}
	sort.Strings(out)
	if len(out) > 6 {
		out = out[:6]
	}
	return "; did you mean " + strings.Join(out, ", ") + "?"
}

// Distance is the Levenshtein distance, for the did-you-mean of metric
// names here and of budget objects in check.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
