package termwidth

import (
	"strings"
	"testing"

	"github.com/jedib0t/go-pretty/v6/table"
)

func TestOfReadsColumnsWhenNotATerminal(t *testing.T) {
	t.Setenv("COLUMNS", "97")
	if got := Of(nil); got != 97 {
		t.Errorf("COLUMNS=97: %d", got)
	}
	t.Setenv("COLUMNS", "wide")
	if got := Of(nil); got != 0 {
		t.Errorf("COLUMNS=wide: %d, want unbounded", got)
	}
}

// Multibyte characters count as one column each, as awk counts them.
func TestWrapCountsRunesAndKeepsEveryWord(t *testing.T) {
	s := "coarse writes 90.0% fewer index entries per refresh (1.000 → 0.100 ≥ 0.05 — on each of 4 indexes of offline_user_session)"
	for _, w := range []int{20, 40, 80} {
		lines := Wrap(s, w, "  1. ", "     ")
		for _, l := range lines {
			if Width(l) > w {
				t.Errorf("width %d: %q is %d wide", w, l, Width(l))
			}
		}
		for i, l := range lines[1:] {
			if !strings.HasPrefix(l, "     ") {
				t.Errorf("width %d: line %d has no hanging indent: %q", w, i+1, l)
			}
		}
		// At 20 columns "offline_user_session" is wider than a line: cut.
		if got := strings.Join(strings.Fields(strings.Join(lines, " ")), " "); w > 20 && got != "1. "+s {
			t.Errorf("width %d lost words: %q", w, got)
		}
	}
	if got := Wrap(s, 0, "", ""); len(got) != 1 || got[0] != s {
		t.Errorf("unbounded: %q", got)
	}
}

func TestWrapCutsOnlyAWordWiderThanTheLine(t *testing.T) {
	lines := Wrap(strings.Repeat("x", 25), 10, "", "  ")
	for _, l := range lines {
		if Width(l) > 10 {
			t.Errorf("%q", l)
		}
	}
	if got := strings.ReplaceAll(strings.Join(lines, ""), " ", ""); got != strings.Repeat("x", 25) {
		t.Errorf("lost characters: %q", lines)
	}
}

func grid() Grid {
	g := Grid{Style: table.StyleLight, Header: []string{"metric", "baseline", "per refresh", "coarse", "per refresh", "change", "basis [source]"},
		Right: map[int]bool{1: true, 2: true, 3: true, 4: true, 5: true}}
	g.Rows = append(g.Rows, GridRow{Title: "Database"})
	g.Rows = append(g.Rows, GridRow{Cells: []string{"log bytes", "22.4 MiB (23,484,848 B)", "1.53 KiB", "13.7 MiB (14,389,288 B)", "959.2 B", "-38.7%", "exact [1]"}})
	g.Rows = append(g.Rows, GridRow{Cells: []string{"of which no object (checkpoints, WAL switches)", "30 B", "0.0 B", "54 B", "0.0 B", "+80.0%", "exact [4]"}})
	g.Rows = append(g.Rows, GridRow{Title: "Index idx_user_session_expiration_last_refresh on offline_user_session", Rule: true})
	g.Rows = append(g.Rows, GridRow{Cells: []string{"leaf inserts — index entries", "15,020", "1.001", "1,502", "0.100", "-90.0%", "exact/derived [2,3]"}})
	return g
}

// A table is drawn whole when it fits, narrowed when its words fit, stacked
// when they do not; at every width no line is wider and no figure is lost.
func TestGridFitsEveryWidthAndKeepsEveryFigure(t *testing.T) {
	var full strings.Builder
	g := grid()
	if err := g.Render(&full, 0); err != nil {
		t.Fatal(err)
	}
	if Widest(full.String()) <= 120 {
		t.Fatalf("the fixture should need fitting at 120: %d wide", Widest(full.String()))
	}
	for _, w := range []int{40, 60, 80, 100, 120} {
		var b strings.Builder
		if err := g.Render(&b, w); err != nil {
			t.Fatal(err)
		}
		if got := Widest(b.String()); got > w {
			t.Errorf("width %d: a line is %d wide:\n%s", w, got, b.String())
		}
		for _, fig := range []string{"23,484,848", "14,389,288", "1.53", "959.2", "-38.7%", "+80.0%", "15,020", "1,502", "1.001", "0.100", "-90.0%", "[2,3]"} {
			if !strings.Contains(b.String(), fig) {
				t.Errorf("width %d lost %s:\n%s", w, fig, b.String())
			}
		}
	}
	var b strings.Builder
	g.Render(&b, 40)
	if !strings.Contains(b.String(), "  per refresh: 1.53 KiB\n") || strings.Contains(b.String(), "┌") {
		t.Errorf("at 40 columns the table is stacked, a column: value line each:\n%s", b.String())
	}
}
