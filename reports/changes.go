package reports

import (
	"fmt"
	"io"
	"math"

	"github.com/writeamp/writeamp/result"
)

// Changes is the change column of the tables as data, for the JSON: every
// row that shows a change, with the values it compares and its rule.
func Changes(c *Comparison) []result.Change {
	if len(c.Columns) < 2 {
		return nil
	}
	last := len(c.Columns) - 1
	var out []result.Change
	for _, sec := range c.Sections {
		for _, r := range sec.Rows {
			if r.Change == "" {
				continue
			}
			a, b := r.Cells[0], r.Cells[last]
			ch := result.Change{Level: sec.Kind, Object: sec.Object, Table: sec.Table, Metric: r.Metric,
				From: c.Columns[0].Label, To: c.Columns[last].Label, Text: r.Change,
				Exactness: result.Weaker(a.Metric.Exactness, b.Metric.Exactness)}
			x, y := a.Metric.V(), b.Metric.V()
			switch {
			case isRatio(r.Metric):
				ch.Unit = "ratio"
				ch.Rule = "after - before, in percentage points (last column vs first)"
			case a.PerOp != nil && b.PerOp != nil && c.PerOp != "":
				ch.Unit = "per " + c.PerOp
				x, y = *a.PerOp, *b.PerOp
			default:
				ch.Unit = "total"
			}
			if ch.Rule == "" {
				ch.Rule = fmt.Sprintf("(after - before) / before, in percent, of the %s values (last column vs first); '=' within 0.05%%, 'new' from zero", ch.Unit)
			}
			ch.Before, ch.After = ptr(x), ptr(y)
			if !math.IsNaN(r.ChangeV) && !math.IsInf(r.ChangeV, 0) {
				ch.Value = ptr(r.ChangeV)
			}
			out = append(out, ch)
		}
	}
	return out
}

// findingsHeading names what the findings compare.
func findingsHeading(c *Comparison) string {
	if len(c.Columns) == 1 {
		return "findings: " + c.Columns[0].Label + "'s largest costs" + perUnit(c)
	}
	if copiesOf(c) {
		copies := "its copy's"
		if n := len(c.Columns) - 1; n > 1 {
			copies = fmt.Sprintf("its %d copies'", n)
		}
		return fmt.Sprintf("findings: %s's largest costs%s, and %s", c.Columns[0].Label, perUnit(c), copies)
	}
	return fmt.Sprintf("findings: %s vs %s, largest effect first", c.Columns[len(c.Columns)-1].Label, c.Columns[0].Label)
}

// shown are the findings the text formats print, and how many more the
// JSON has.
func shown(c *Comparison) ([]result.Finding, int) {
	if len(c.Findings) <= shownFindings {
		return c.Findings, 0
	}
	return c.Findings[:shownFindings], len(c.Findings) - shownFindings
}

// writeFindings prints the findings block of the table and markdown formats.
func writeFindings(w io.Writer, c *Comparison, markdown bool) {
	if len(c.Findings) == 0 {
		return
	}
	fs, more := shown(c)
	if markdown {
		fmt.Fprintf(w, "**%s**\n\n", capitalize(findingsHeading(c)))
		for _, f := range fs {
			fmt.Fprintf(w, "%d. %s\n", f.Rank, f.Text)
		}
		if more > 0 {
			fmt.Fprintf(w, "\n…and %d smaller %s beyond noise (every one in the JSON's findings)\n", more, plural(more, "change"))
		}
		fmt.Fprintf(w, "\n_%s_\n\n", c.FindingsRule)
		return
	}
	fmt.Fprintln(w, findingsHeading(c))
	for _, f := range fs {
		fmt.Fprintf(w, "  %d. %s\n", f.Rank, f.Text)
	}
	if more > 0 {
		fmt.Fprintf(w, "  …and %d smaller %s beyond noise (every one in the JSON's findings)\n", more, plural(more, "change"))
	}
	fmt.Fprintln(w, "  "+c.FindingsRule)
	fmt.Fprintln(w)
}

func plural(n int, s string) string {
	if n == 1 {
		return s
	}
	return s + "s"
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
