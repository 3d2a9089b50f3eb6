package reports

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/jedib0t/go-pretty/v6/table"
	"github.com/jedib0t/go-pretty/v6/text"

	"github.com/writeamp/writeamp/internal/termwidth"
	"github.com/writeamp/writeamp/result"
)

// Formats lists what Render accepts.
var Formats = []string{"table", "markdown", "json", "csv", "html", "openmetrics"}

// Options change how a report looks, never what it says.
type Options struct {
	Color bool // ANSI colour (only on a terminal)
	Top   int  // tables and indexes table/markdown/html show: 0 DefaultTop, < 0 all (top.go)
	// Width is the terminal's the table format fits (termwidth.Of); 0:
	// unbounded. Markdown, html and the data formats ignore it.
	Width int
}

// CheckFormat validates a --format value.
func CheckFormat(f string) error {
	for _, x := range Formats {
		if x == f {
			return nil
		}
	}
	return fmt.Errorf("--format: unknown format %q (use one of: %s)", f, strings.Join(Formats, ", "))
}

// Render writes a result in a format.
func Render(w io.Writer, format string, res *result.Result, o Options) error {
	switch format {
	case "json":
		return JSON(w, res)
	case "csv":
		return CSV(w, res)
	case "html":
		c := FromResult(res)
		c.limit(o.Top)
		return htmlOf(w, res, c)
	case "openmetrics":
		return OpenMetrics(w, res)
	case "table", "markdown":
		c := FromResult(res)
		c.limit(o.Top)
		if format == "markdown" {
			return Markdown(w, c)
		}
		return Table(w, c, o)
	}
	return CheckFormat(format)
}

// JSON writes the result document (schema_version 1), with its findings
// and change column computed afresh (a result read back from a file may
// carry them from an older writeamp, or from other runs).
func JSON(w io.Writer, res *result.Result) error {
	return writeIndented(w, FindingsOf(res))
}

// FromResult compares the runs of one result (its variants).
func FromResult(res *result.Result) *Comparison {
	var cols []Column
	for i := range res.Runs {
		r := &res.Runs[i]
		label := r.Variant
		if r.Label != "" {
			label = r.Label
		}
		cols = append(cols, Column{Label: label, Run: r})
	}
	title := "writeamp"
	if res.Workload.Name != "" {
		title += " · " + res.Workload.Name
	}
	title += " on " + res.Server.Name
	c := Build(title, subtitle(res), cols)
	c.Notes = append(c.Notes, res.Notes...)
	c.Findings, c.FindingsRule = Findings(c, res)
	c.Claims = claimsOf(c, res)
	return c
}

func subtitle(res *result.Result) []string {
	var out []string
	var cols []Column
	for i := range res.Runs {
		cols = append(cols, Column{Run: &res.Runs[i]})
	}
	if len(res.Runs) > 0 && sameOperations(cols) {
		r := res.Runs[0]
		var ops []string
		for _, k := range slices.Sorted(maps.Keys(r.Operations)) {
			ops = append(ops, fmt.Sprintf("%s %s", count(float64(r.Operations[k])), k))
		}
		if len(ops) > 0 {
			out = append(out, "per variant: "+strings.Join(ops, ", "))
		}
	}
	if p := res.Workload.Params; len(p) > 0 {
		var kv []string
		for _, k := range slices.Sorted(maps.Keys(p)) {
			kv = append(kv, fmt.Sprintf("%s=%v", k, p[k]))
		}
		out = append(out, "parameters: "+strings.Join(kv, " "))
	}
	for _, a := range res.Workload.Assumptions {
		out = append(out, "assumption: "+a)
	}
	return out
}

func refs(r Row) string {
	if len(r.Refs) == 0 {
		return r.Basis
	}
	var s []string
	for _, n := range r.Refs {
		s = append(s, fmt.Sprint(n))
	}
	return r.Basis + " [" + strings.Join(s, ",") + "]"
}

func header(c *Comparison) table.Row {
	h := table.Row{"metric"}
	for _, col := range c.Columns {
		h = append(h, col.Label)
		if c.PerOp != "" {
			h = append(h, "per "+c.PerOp)
		}
	}
	if len(c.Columns) > 1 {
		h = append(h, "change")
	}
	return append(h, "basis [source]")
}

func rowCells(c *Comparison, r Row) table.Row {
	out := table.Row{r.Label}
	for _, cell := range r.Cells {
		out = append(out, cell.Text)
		if c.PerOp != "" {
			out = append(out, cell.PerText)
		}
	}
	if len(c.Columns) > 1 {
		out = append(out, r.Change)
	}
	return append(out, refs(r))
}

// Table renders for a terminal, fitted to o.Width: the tables narrowed,
// wrapped or stacked (termwidth.Grid), every other line word-wrapped.
func Table(w io.Writer, c *Comparison, o Options) error {
	tw := termwidth.NewWriter(w, o.Width)
	w = tw
	fmt.Fprintln(w, c.Title)
	for _, s := range c.Subtitle {
		fmt.Fprintln(w, "  "+s)
	}
	fmt.Fprintln(w)
	writeFindings(w, c, false)
	writeClaims(w, c, o, false)
	g := termwidth.Grid{Style: tableStyle(o), Right: map[int]bool{}}
	for _, h := range header(c) {
		g.Header = append(g.Header, fmt.Sprint(h))
	}
	for i := 1; i < len(g.Header)-1; i++ {
		g.Right[i] = true
	}
	if o.Color {
		g.Bold = func(s string) string { return text.Bold.Sprint(s) }
	}
	g.Rows = append(g.Rows, termwidth.GridRow{Title: "Run"})
	for _, r := range runRows(c) {
		g.Rows = append(g.Rows, termwidth.GridRow{Cells: cellTexts(r)})
	}
	for _, s := range c.Sections {
		if len(s.Rows) == 0 {
			continue
		}
		g.Rows = append(g.Rows, termwidth.GridRow{Title: s.Title, Rule: true})
		for _, r := range s.Rows {
			g.Rows = append(g.Rows, termwidth.GridRow{Cells: cellTexts(rowCells(c, r))})
		}
	}
	if err := g.Render(w, o.Width); err != nil {
		return err
	}
	writeAfterTable(w, c, o, false)
	footer(w, c, "")
	return tw.Flush()
}

// tableStyle is the terminal tables' look: light lines, colour only on a
// terminal, no rule between rows.
func tableStyle(o Options) table.Style {
	style := table.StyleLight
	if !o.Color {
		style.Color = table.ColorOptions{}
	}
	style.Options.SeparateRows = false
	return style
}

func cellTexts(r table.Row) []string {
	out := make([]string, len(r))
	for i, v := range r {
		out[i] = fmt.Sprint(v)
	}
	return out
}

func footer(w io.Writer, c *Comparison, bullet string) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, bullet+"basis: exact = counted by the server; derived = computed by the stated rule; approx = a proxy; n/a = unavailable (see notes); · = not reported in that run; — = object absent in that run")
	if c.PerOp != "" && len(c.Columns) > 1 {
		fmt.Fprintln(w, bullet+"change: last column vs first, per "+c.PerOp+" (ratios in percentage points)")
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, bullet+"sources:")
	for i, s := range c.Sources {
		fmt.Fprintf(w, "%s  [%d] %s\n", bullet, i+1, s)
	}
	if len(c.Notes) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, bullet+"notes:")
		for _, n := range c.Notes {
			fmt.Fprintf(w, "%s  - %s\n", bullet, n)
		}
	}
}

// Markdown renders for a pull-request comment.
func Markdown(w io.Writer, c *Comparison) error {
	fmt.Fprintf(w, "### %s\n\n", c.Title)
	writeFindings(w, c, true)
	writeClaims(w, c, Options{}, true)
	for _, s := range c.Subtitle {
		fmt.Fprintf(w, "- %s\n", s)
	}
	fmt.Fprintln(w)
	t := table.NewWriter()
	t.SetOutputMirror(w)
	t.AppendHeader(header(c))
	t.AppendRow(table.Row{"**Run**"})
	for _, r := range runRows(c) {
		t.AppendRow(r)
	}
	for _, s := range c.Sections {
		if len(s.Rows) == 0 {
			continue
		}
		t.AppendRow(table.Row{"**" + s.Title + "**"})
		for _, r := range s.Rows {
			t.AppendRow(rowCells(c, r))
		}
	}
	t.RenderMarkdown()
	writeAfterTable(w, c, Options{}, true)
	footer(w, c, "")
	return nil
}
