package capacity

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/dustin/go-humanize"
	"github.com/jedib0t/go-pretty/v6/table"
	"github.com/jedib0t/go-pretty/v6/text"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/internal/termwidth"
	"github.com/writeamp/writeamp/result"
)

// Render writes the plan as "table", "markdown" or "json".
func Render(w io.Writer, format, dialect string, p *Plan) error {
	return RenderWidth(w, format, dialect, p, 0)
}

// RenderWidth is Render with the table format fitted to width columns
// (<= 0: unbounded): the table narrowed, wrapped or stacked, the notes
// word-wrapped. Markdown and JSON do not depend on it.
func RenderWidth(w io.Writer, format, dialect string, p *Plan, width int) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(p)
	}
	md := format == "markdown"
	if md {
		width = 0
	}
	if width > 0 {
		tw := termwidth.NewWriter(w, width)
		defer tw.Flush() // runs last: after the replicas' part below
		w = tw
	}
	defer renderReplicas(w, md, p) // after the plan's own table and notes
	log := dialects.LogName(dialect)
	op := p.Variants[0].Op
	one := singular(op)
	cols := columns(p)
	at := p.Rate.String()
	if len(p.AtRates) > 1 {
		var rs []string
		for _, r := range p.AtRates {
			rs = append(rs, trimFloat(r.Rate.PerSecond))
		}
		at = strings.Join(rs, ", ") + " " + op + "/s"
	}
	title := fmt.Sprintf("writeamp plan · %s on %s, at %s", p.Workload, p.Server, at)
	if md {
		fmt.Fprintf(w, "### %s\n\n", title)
	} else {
		fmt.Fprintln(w, title)
		fmt.Fprintln(w)
	}
	st := table.StyleLight
	st.Color = table.ColorOptions{}
	st.Format.Header = text.FormatDefault
	g := termwidth.Grid{Style: st, Header: []string{"at " + at}, Right: map[int]bool{}}
	for i, c := range cols {
		g.Header = append(g.Header, c.label)
		g.Right[i+1] = true
	}
	g.Header = append(g.Header, "basis / source")
	row := func(label string, basis string, f func(VariantPlan) string) {
		r := []string{label}
		for _, c := range cols {
			r = append(r, f(c.v))
		}
		g.Rows = append(g.Rows, termwidth.GridRow{Cells: append(r, basis)})
	}
	basis := func(f func(VariantPlan) Figure) string {
		var seen []string
		for _, c := range cols {
			v := c.v
			if e := string(f(v).Exactness); !slices.Contains(seen, e) {
				seen = append(seen, e)
			}
		}
		return strings.Join(seen, "/")
	}
	na := func(ok bool, s string) string {
		if !ok {
			return "n/a"
		}
		return s
	}
	logB := func(v VariantPlan) Figure { return v.LogBytes }
	mixed := ", mix included"
	if p.PerRow {
		mixed = ""
	}
	row(fmt.Sprintf("%s per %s%s (bytes)", log, one, mixed), basis(logB)+" [1]", func(v VariantPlan) string {
		return na(v.LogBytes.OK, result.FormatBytes(v.LogBytes.PerOp))
	})
	row(fmt.Sprintf("%s rate, MB/s (10^6 B/s)", log), basis(logB)+" [1]", func(v VariantPlan) string {
		return na(v.LogBytes.OK, fmt.Sprintf("%.2f MB/s", v.LogMBps()))
	})
	row(fmt.Sprintf("%s rate, MiB/s (2^20 B/s)", log), basis(logB)+" [1]", func(v VariantPlan) string {
		return na(v.LogBytes.OK, fmt.Sprintf("%.2f MiB/s", v.LogMiBps()))
	})
	row(fmt.Sprintf("%s per day, GB/day (10^9 B)", log), basis(logB)+" [1]", func(v VariantPlan) string {
		return na(v.LogBytes.OK, fmt.Sprintf("%s GB/day", commasF(v.LogGBPerDay(), 1)))
	})
	row(fmt.Sprintf("%s per day, GiB/day (2^30 B)", log), basis(logB)+" [1]", func(v VariantPlan) string {
		return na(v.LogBytes.OK, fmt.Sprintf("%s GiB/day", commasF(v.LogBytes.PerSecond*Day/GiB, 1)))
	})
	if p.Variants[0].ClusterLog != nil {
		row(fmt.Sprintf("whole-cluster %s per day, GB/day", log), basis(func(v VariantPlan) Figure {
			if v.ClusterLog == nil {
				return Figure{}
			}
			return *v.ClusterLog
		})+" [5]", func(v VariantPlan) string {
			if v.ClusterLog == nil || !v.ClusterLog.OK {
				return "n/a"
			}
			return fmt.Sprintf("%s GB/day", commasF(v.ClusterLog.PerSecond*Day/GB, 1))
		})
	}
	leaf := func(v VariantPlan) Figure { return v.LeafInserts }
	row("index leaf inserts/s (all indexes)", basis(leaf)+" [2]", func(v VariantPlan) string {
		return na(v.LeafInserts.OK, HumanRate(v.LeafInserts.PerSecond))
	})
	rows := func(v VariantPlan) Figure { return v.RowsChanged }
	row("rows changed/s (ins+upd+del)", basis(rows)+" [3]", func(v VariantPlan) string {
		return na(v.RowsChanged.OK, HumanRate(v.RowsChanged.PerSecond))
	})
	if len(p.Variants) > 0 && len(p.Variants[0].Headroom) > 0 {
		g.Rows = append(g.Rows, termwidth.GridRow{Rule: true})
		for i, hr := range p.Variants[0].Headroom {
			c := hr.Ceiling
			row(fmt.Sprintf("ceiling %s: share used", c.Short()), "derived [4]", func(v VariantPlan) string {
				if i >= len(v.Headroom) {
					return "n/a"
				}
				x := v.Headroom[i]
				mark := ""
				if !x.WithinBudget {
					mark = " OVER"
				}
				return fmt.Sprintf("%.1f%%%s", x.UsedPercent, mark)
			})
			row(fmt.Sprintf("ceiling %s: reached at", c.Short()), "derived [4]", func(v VariantPlan) string {
				if i >= len(v.Headroom) {
					return "n/a"
				}
				return fmt.Sprintf("%s %s/s", strings.TrimSuffix(HumanRate(v.Headroom[i].MaxRate), "/s"), op)
			})
		}
	}
	if md {
		t := table.NewWriter()
		t.SetOutputMirror(w)
		h := table.Row{}
		for _, c := range g.Header {
			h = append(h, c)
		}
		t.AppendHeader(h)
		var cfg []table.ColumnConfig
		for i := range cols {
			cfg = append(cfg, table.ColumnConfig{Number: i + 2, Align: text.AlignRight})
		}
		t.SetColumnConfigs(cfg)
		for _, r := range g.Rows {
			if r.Rule {
				continue // markdown has no separators inside a table
			}
			tr := table.Row{}
			for _, c := range r.Cells {
				tr = append(tr, c)
			}
			t.AppendRow(tr)
		}
		t.RenderMarkdown()
	} else if err := g.Render(w, width); err != nil {
		return err
	}
	b := ""
	if md {
		b = "- "
	}
	fmt.Fprintln(w)
	savings := []AtRate{{Rate: p.Rate, Savings: p.Savings}}
	if len(p.AtRates) > 1 {
		savings = p.AtRates
	}
	for _, ar := range savings {
		for _, s := range ar.Savings {
			saving(w, b, log, s, ar.Rate)
		}
	}
	if len(p.Savings) > 0 {
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, b+"sources:")
	src := func(n int, f func(VariantPlan) Figure) {
		var seen []string
		for _, v := range p.Variants {
			if s := f(v).Source; s != "" && !slices.Contains(seen, s) {
				seen = append(seen, s)
			}
		}
		fmt.Fprintf(w, "%s  [%d] %s\n", b, n, strings.Join(seen, "; "))
	}
	renderTail(w, b, log, one, p, src)
	return nil
}

func saving(w io.Writer, b, log string, s Saving, rate Rate) {
	{
		verb := "saves"
		gb := s.GBPerDay
		if gb < 0 {
			verb, gb = "adds", -gb
		}
		fmt.Fprintf(w, "%s%s over %s %s %s GB/day of %s (%s GiB/day, %.1f%% of %s's %s volume) and %s index leaf inserts/s at %s\n",
			b, s.To, s.From, verb, commasF(gb, 1), log, commasF(gb*GB/GiB, 1), abs(s.Percent), s.From, log, strings.TrimSuffix(HumanRate(abs(s.LeafPerSec)), "/s"), rate.String())
	}
}

func renderTail(w io.Writer, b, log, one string, p *Plan, src func(int, func(VariantPlan) Figure)) {
	logB := func(v VariantPlan) Figure { return v.LogBytes }
	leaf := func(v VariantPlan) Figure { return v.LeafInserts }
	rows := func(v VariantPlan) Figure { return v.RowsChanged }
	src(1, logB)
	src(2, leaf)
	src(3, rows)
	if len(p.Ceilings) > 0 {
		fmt.Fprintf(w, "%s  [4] used = %s rate / ceiling; reached at = ceiling / %s bytes per %s; ceilings:\n", b, log, log, one)
		for _, c := range p.Ceilings {
			fmt.Fprintf(w, "%s      %s: %s (%s)\n", b, c.Short(), c.Label(), c.Source)
		}
	}
	if p.Variants[0].ClusterLog != nil {
		src(5, func(v VariantPlan) Figure {
			if v.ClusterLog == nil {
				return Figure{}
			}
			return *v.ClusterLog
		})
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, b+"assumptions:")
	for _, a := range p.Assumptions {
		fmt.Fprintf(w, "%s  - %s\n", b, a)
	}
	for _, v := range p.Variants {
		for _, f := range []Figure{v.LogBytes, v.LeafInserts, v.RowsChanged} {
			if f.Note != "" && (f.Exactness != "exact" || !f.OK) {
				fmt.Fprintf(w, "%s  - %s: %s: %s\n", b, v.Variant, f.Source, f.Note)
			}
		}
	}
}

// column is one column of the plan table: a variant at a rate.
type column struct {
	label string
	v     VariantPlan
}

func columns(p *Plan) []column {
	var out []column
	if len(p.AtRates) < 2 {
		for _, v := range p.Variants {
			out = append(out, column{v.Variant, v})
		}
		return out
	}
	for i := range p.Variants {
		for _, r := range p.AtRates {
			label := HumanRate(r.Rate.PerSecond)
			if len(p.Variants) > 1 {
				label = p.Variants[i].Variant + " @ " + label
			}
			out = append(out, column{label, r.Variants[i]})
		}
	}
	return out
}

func singular(op string) string {
	if op == "rows changed" {
		return "row changed"
	}
	for _, suf := range []string{"shes", "ches", "sses", "xes"} {
		if strings.HasSuffix(op, suf) {
			return strings.TrimSuffix(op, "es")
		}
	}
	return strings.TrimSuffix(op, "s")
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

func commasF(v float64, digits int) string {
	if digits == 0 {
		return humanize.FormatFloat("#,###.", v)
	}
	return humanize.FormatFloat("#,###."+strings.Repeat("#", digits), v)
}
