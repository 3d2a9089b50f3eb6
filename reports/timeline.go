package reports

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/jedib0t/go-pretty/v6/table"
	"github.com/jedib0t/go-pretty/v6/text"

	"github.com/writeamp/writeamp/internal/termwidth"
	"github.com/writeamp/writeamp/result"
)

// Timeline is what the reports print of runs sampled with --interval: per
// series the minimum, median and maximum of its rate over the intervals,
// one column per run, so a comparison of sampled results shows them side
// by side. The html also draws the rates over time (timelineCharts).
type Timeline struct {
	Rows []TimelineRow
}

// TimelineRow is one series across the runs.
type TimelineRow struct {
	Name  string // a series name, or result.RowsChanged
	Label string
	Cells []string // per column: "min / median / max", "" when not sampled
	Basis string
	Refs  []int
}

// timelineOrder is the order the series are printed in: the log and the
// rows the charts draw, then the parts and the rest.
// The catalogue's Timeline places them; RowsChanged is the sum at place 2.
var timelineOrder = func() []string {
	byPlace := map[int]string{2: result.RowsChanged}
	for _, m := range result.Metrics() {
		if m.Timeline > 0 {
			byPlace[m.Timeline] = m.Name
		}
	}
	out := make([]string, 0, len(byPlace))
	for p := 1; p <= len(byPlace); p++ {
		out = append(out, byPlace[p])
	}
	return out
}()

// seriesOf returns a run's series of that name; for RowsChanged a series
// made of the three row series (the weakest exactness, their sources).
func seriesOf(s *result.Samples, name string) (result.SampleSeries, bool) {
	if name != result.RowsChanged {
		return s.Lookup(name)
	}
	if !s.HasRows() {
		return result.SampleSeries{}, false
	}
	out := result.SampleSeries{Name: name, Unit: result.Count, Exactness: result.Derived}
	var srcs []string
	for _, n := range []string{result.RowsInserted.Name, result.RowsUpdated.Name, result.RowsDeleted.Name} {
		x, _ := s.Lookup(n)
		out.Exactness = result.Weaker(out.Exactness, x.Exactness)
		srcs = append(srcs, strings.SplitN(x.Source, " (", 2)[0])
	}
	out.Source = "rows inserted + updated + deleted: " + strings.Join(srcs, " + ")
	return out, true
}

func seriesLabel(name string) string {
	switch name {
	case result.RowsChanged:
		return "rows changed/s"
	case result.TransactionsCommitted.Name:
		return "commits/s"
	}
	return labelOf(name) + "/s"
}

// buildTimeline is the comparison's timeline; nil when no run was sampled.
func buildTimeline(c *Comparison) *Timeline {
	sampled := false
	for _, col := range c.Columns {
		if col.Run.Samples != nil {
			sampled = true
		}
	}
	if !sampled {
		return nil
	}
	ref := func(s string) int {
		for i, x := range c.Sources {
			if x == s {
				return i + 1
			}
		}
		c.Sources = append(c.Sources, s)
		return len(c.Sources)
	}
	tl := &Timeline{}
	noted, order := map[string][]string{}, []string(nil) // a series note: the rows it is about
	iv := TimelineRow{Name: "intervals", Label: "intervals", Basis: "writeamp's clock"}
	for _, col := range c.Columns {
		s := col.Run.Samples
		if s == nil {
			iv.Cells = append(iv.Cells, "not sampled")
			continue
		}
		iv.Cells = append(iv.Cells, fmt.Sprintf("%d × %s", max(len(s.Points)-1, 0), seconds(s.IntervalSeconds)))
	}
	tl.Rows = append(tl.Rows, iv)
	for _, name := range timelineOrder {
		row := TimelineRow{Name: name, Label: seriesLabel(name)}
		basis := map[string]bool{}
		var refs []int
		seen := false
		for _, col := range c.Columns {
			s := col.Run.Samples
			ser, ok := seriesOf(s, name)
			st := RateStats{}
			if ok {
				st = s.Stats(name)
			}
			if !ok || st.N == 0 {
				row.Cells = append(row.Cells, "")
				continue
			}
			seen = true
			row.Cells = append(row.Cells, fmt.Sprintf("%s / %s / %s", result.FormatRate(ser.Unit, st.Min), result.FormatRate(ser.Unit, st.Median), result.FormatRate(ser.Unit, st.Max)))
			basis[string(ser.Exactness)] = true
			if ser.Note != "" && ser.Exactness != result.Exact {
				if !containsStr(noted[ser.Note], row.Label) {
					noted[ser.Note] = append(noted[ser.Note], row.Label)
				}
				if !containsStr(order, ser.Note) {
					order = append(order, ser.Note)
				}
			}
			if n := ref(ser.Source); !containsInt(refs, n) {
				refs = append(refs, n)
			}
		}
		if !seen {
			continue
		}
		var bs []string
		for _, e := range []string{"exact", "derived", "approx"} {
			if basis[e] {
				bs = append(bs, e)
			}
		}
		row.Basis, row.Refs = strings.Join(bs, "/"), refs
		tl.Rows = append(tl.Rows, row)
	}
	for _, n := range order {
		c.Notes = append(c.Notes, "timeline: "+strings.Join(noted[n], ", ")+": "+n)
	}
	for _, col := range c.Columns {
		if col.Run.Samples == nil {
			continue
		}
		prefix := "timeline: "
		if len(c.Columns) > 1 {
			prefix = col.Label + ": timeline: "
		}
		for _, n := range col.Run.Samples.Notes {
			c.Notes = append(c.Notes, prefix+n)
		}
	}
	return tl
}

// RateStats is result.RateStats, named here for the renderers.
type RateStats = result.RateStats

func containsStr(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// seconds writes a duration in seconds: 5 s, 1.5 s.
func seconds(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f s", v)
	}
	return fmt.Sprintf("%.1f s", v)
}

// timelineHeading says what the timeline rows are.
const timelineHeading = "timeline: rate per second over each sampled interval, min / median / max (measure/run --interval)"

func (tl *Timeline) header(c *Comparison) table.Row {
	h := table.Row{"series"}
	for _, col := range c.Columns {
		h = append(h, col.Label)
	}
	return append(h, "basis [source]")
}

func (tl *Timeline) cells(r TimelineRow) table.Row {
	out := table.Row{r.Label}
	for _, s := range r.Cells {
		out = append(out, s)
	}
	return append(out, refs(Row{Basis: r.Basis, Refs: r.Refs}))
}

// writeTimeline prints the timeline table under the main one (table and
// markdown formats).
func writeTimeline(w io.Writer, c *Comparison, o Options, markdown bool) {
	tl := c.Timeline
	if tl == nil {
		return
	}
	fmt.Fprintln(w)
	if markdown {
		fmt.Fprintf(w, "**%s**\n\n", timelineHeading)
	} else {
		fmt.Fprintln(w, timelineHeading)
	}
	if !markdown {
		g := termwidth.Grid{Style: tableStyle(o), Right: map[int]bool{}}
		g.Header = cellTexts(tl.header(c))
		for i := 1; i <= len(c.Columns); i++ {
			g.Right[i] = true
		}
		for _, r := range tl.Rows {
			g.Rows = append(g.Rows, termwidth.GridRow{Cells: cellTexts(tl.cells(r))})
		}
		g.Render(w, o.Width)
		return
	}
	t := table.NewWriter()
	t.SetOutputMirror(w)
	t.AppendHeader(tl.header(c))
	var cfg []table.ColumnConfig
	for i := 2; i <= len(c.Columns)+1; i++ {
		cfg = append(cfg, table.ColumnConfig{Number: i, Align: text.AlignRight})
	}
	t.SetColumnConfigs(cfg)
	for _, r := range tl.Rows {
		t.AppendRow(tl.cells(r))
	}
	t.RenderMarkdown()
}
