package reports

import (
	"fmt"
	"math"
	"slices"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/result"
)

// inScopeHeadline keeps the log finding from pointing the wrong way: the
// window's log includes what other sessions and objects wrote, and when
// that out-of-scope share moves between the two runs by more than the
// noise rule (5 pt of the window's log, a ratio of counts of work that is
// not provably the same), the whole-window change says more about them
// than about the measured objects. The log finding then carries the
// measured objects' log (log_bytes_in_scope), where it ranked, and says
// why; the separate in-scope finding it replaces is dropped.
func inScopeHeadline(c *Comparison, dialect string, fs []result.Finding) []result.Finding {
	i := slices.IndexFunc(fs, func(f result.Finding) bool {
		return f.Kind == "change" && f.Metric == result.LogBytes.Name && f.Level == "database"
	})
	if i < 0 {
		return fs
	}
	last := len(c.Columns) - 1
	cells := func(metric string) (a, b float64, e result.Exactness, ok bool) {
		for _, sec := range c.Sections {
			if sec.Kind != "database" {
				continue
			}
			for _, r := range sec.Rows {
				if r.Metric != metric {
					continue
				}
				va, okA := value(c, metric, r.Cells[0])
				vb, okB := value(c, metric, r.Cells[last])
				return va, vb, result.Weaker(r.Cells[0].Metric.Exactness, r.Cells[last].Metric.Exactness), okA && okB
			}
		}
		return 0, 0, "", false
	}
	ta, tb, _, ok := cells(result.LogBytes.Name)
	ia, ib, e, okIn := cells(result.LogBytesInScope.Name)
	if !ok || !okIn || ta <= 0 || tb <= 0 {
		return fs
	}
	oa, ob := 1-ia/ta, 1-ib/tb
	if moved, _ := beyondNoiseAs("ratio", oa, ob, result.Approx, false, 0); !moved {
		return fs
	}
	f := fs[i]
	whole := changeText(ta, tb)
	sa, sb := fmtPair(c, result.LogBytesInScope.Name, ia, ib)
	in := "the measured objects' " + dialects.LogName(dialect) + perUnit(c)
	moved, _ := beyondNoise(result.LogBytesInScope.Name, ia, ib, e, false, 0)
	figure := fmt.Sprintf("%s (%s → %s%s)", changeText(ia, ib), sa, sb, exactnessWords(e))
	if !moved {
		figure = fmt.Sprintf(": no change beyond noise (%s, %s → %s%s)", changeText(ia, ib), sa, sb, exactnessWords(e))
	} else {
		figure = " " + figure
	}
	f.Metric, f.Before, f.After, f.Exactness = result.LogBytesInScope.Name, ptr(ia), ptr(ib), e
	f.Change, f.Effect = nil, 0
	if ia != 0 {
		f.Change = ptr(100 * (ib - ia) / math.Abs(ia))
		f.Effect = math.Min(1, math.Abs(ib-ia)/math.Max(math.Abs(ia), math.Abs(ib)))
	}
	f.Text = fmt.Sprintf("%s%s; not the whole window's %s: the log outside the scope (other sessions, other objects) went from %.1f%% to %.1f%% of it",
		in, figure, whole, 100*oa, 100*ob)
	f.Rule = "the out-of-scope share of the log moved beyond 5 pt between the runs: the headline is the measured objects' log; " + f.Rule
	out := make([]result.Finding, 0, len(fs))
	for j, g := range fs {
		switch {
		case j == i:
			out = append(out, f)
		case g.Metric == result.LogBytesInScope.Name && g.Level == "database":
		default:
			out = append(out, g)
		}
	}
	for j := range out {
		out[j].Rank = j + 1
	}
	return out
}
