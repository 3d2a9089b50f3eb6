package termwidth

import (
	"io"
	"strings"

	"github.com/jedib0t/go-pretty/v6/table"
	"github.com/jedib0t/go-pretty/v6/text"
)

// Grid is a table to fit a width: drawn as it is when it fits, else with
// its widest columns narrowed and their cells wrapped between words, else
// (more columns than the width holds) stacked: each row a block of
// "column: value" lines.
type Grid struct {
	Header []string
	Rows   []GridRow
	// Right are the columns (0-based) aligned right.
	Right map[int]bool
	// Max caps a column (0-based) at any width, its cells wrapped.
	Max   map[int]int
	Style table.Style
	// Bold writes a title row (colour on a terminal); nil leaves it plain.
	Bold func(string) string
}

// GridRow is a row of cells, or a title spanning the table (Title set),
// with a rule above it when Rule.
type GridRow struct {
	Cells []string
	Title string
	Rule  bool
}

const pad = 3 // "│ " before each cell and " " after it, one "│" closes

// Render writes the grid fitted to width (<= 0: unbounded).
func (g Grid) Render(w io.Writer, width int) error {
	s := g.draw(nil)
	if width <= 0 || Widest(s) <= width {
		_, err := io.WriteString(w, s)
		return err
	}
	if caps := g.caps(width); caps != nil {
		if s := g.draw(caps); Widest(s) <= width {
			_, err := io.WriteString(w, s)
			return err
		}
	}
	_, err := io.WriteString(w, g.stacked(width))
	return err
}

func (g Grid) bold(s string) string {
	if g.Bold == nil {
		return s
	}
	return g.Bold(s)
}

func (g Grid) draw(caps []int) string {
	var b strings.Builder
	t := table.NewWriter()
	t.SetOutputMirror(&b)
	t.SetStyle(g.Style)
	h := table.Row{}
	for _, s := range g.Header {
		h = append(h, s)
	}
	t.AppendHeader(h)
	var cfg []table.ColumnConfig
	for i := range g.Header {
		c := table.ColumnConfig{Number: i + 1}
		if g.Right[i] {
			c.Align = text.AlignRight
		}
		limit := g.Max[i]
		if caps != nil && caps[i] > 0 && (limit == 0 || caps[i] < limit) {
			limit = caps[i]
		}
		if limit > 0 {
			c.WidthMax, c.WidthMaxEnforcer = limit, text.WrapSoft
		}
		cfg = append(cfg, c)
	}
	t.SetColumnConfigs(cfg)
	for _, r := range g.Rows {
		if r.Rule {
			t.AppendSeparator()
		}
		if r.Title != "" {
			row := table.Row{}
			for range g.Header {
				row = append(row, g.bold(r.Title))
			}
			t.AppendRow(row, table.RowConfig{AutoMerge: true})
			continue
		}
		row := table.Row{}
		for _, c := range r.Cells {
			row = append(row, c)
		}
		t.AppendRow(row)
	}
	t.Render()
	return b.String()
}

// caps are the widest width of each column that fits the table in width
// (0: the column as it is), or nil when even with every column at its
// longest word the table is wider: no word is cut inside a table, so a
// figure stays whole.
func (g Grid) caps(width int) []int {
	n := len(g.Header)
	natural, least := make([]int, n), make([]int, n)
	see := func(i int, s string) {
		for _, l := range strings.Split(s, "\n") {
			natural[i] = max(natural[i], Width(l))
			for _, w := range strings.Fields(l) {
				least[i] = max(least[i], Width(w))
			}
		}
	}
	for i, s := range g.Header {
		see(i, s)
	}
	for _, r := range g.Rows {
		for i, s := range r.Cells {
			if i < n {
				see(i, s)
			}
		}
	}
	for i, m := range g.Max {
		if i < n && m > 0 && natural[i] > m {
			natural[i] = max(m, least[i])
		}
	}
	room := width - pad*n - 1
	fits := func(c int) bool {
		sum := 0
		for i := range natural {
			sum += max(least[i], min(natural[i], c))
		}
		return sum <= room
	}
	if !fits(0) {
		return nil
	}
	// The largest cap that fits: the widest columns give way first.
	lo, hi := 0, 0
	for _, v := range natural {
		hi = max(hi, v)
	}
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	caps := make([]int, n)
	for i := range natural {
		if natural[i] > lo {
			caps[i] = max(least[i], lo)
		}
	}
	return caps
}

// stacked writes each row as its first cell, then one "column: value"
// line for each other cell that has one, wrapped under its column name.
func (g Grid) stacked(width int) string {
	var b strings.Builder
	line := func(ls []string) {
		for _, l := range ls {
			b.WriteString(l + "\n")
		}
	}
	for i, r := range g.Rows {
		if r.Title != "" {
			if i > 0 {
				b.WriteString("\n")
			}
			line(Wrap(g.bold(r.Title), width, "", "  "))
			continue
		}
		if len(r.Cells) == 0 {
			continue
		}
		first := r.Cells[0]
		if len(g.Header) > 0 && g.Header[0] != "" {
			first = g.Header[0] + ": " + first
		}
		line(Wrap(strings.ReplaceAll(first, "\n", " "), width, "", "    "))
		for j := 1; j < len(r.Cells) && j < len(g.Header); j++ {
			v := strings.TrimSpace(r.Cells[j])
			if v == "" {
				continue
			}
			name := g.Header[j] + ": "
			line(Wrap(strings.ReplaceAll(v, "\n", " "), width, "  "+name, "      "))
		}
	}
	return b.String()
}
