package reports

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"github.com/jedib0t/go-pretty/v6/table"

	"github.com/writeamp/writeamp/internal/termwidth"
	"github.com/writeamp/writeamp/result"
)

// The claims section follows the findings in the text formats, with each
// row's rule listed under it by number; the html shows the same table and
// the csv one row per claim (level "claim").

func claimsHeading(c *Comparison) string {
	return c.ClaimsHeading
}

// VerdictText is the verdict cell: "not measured: why".
func VerdictText(cl result.Claim) string {
	if cl.Why != "" {
		return cl.Verdict + ": " + cl.Why
	}
	return cl.Verdict
}

func basisOf(cl result.Claim) string {
	if cl.Exactness == result.Unavailable {
		return "—"
	}
	return string(cl.Exactness)
}

func writeClaims(w io.Writer, c *Comparison, o Options, markdown bool) {
	if len(c.Claims) == 0 {
		return
	}
	t := table.NewWriter()
	t.SetOutputMirror(w)
	t.AppendHeader(table.Row{"#", "claim", "measured here", "basis", "verdict"})
	for i, cl := range c.Claims {
		t.AppendRow(table.Row{i + 1, cl.Claim, cl.Measured, basisOf(cl), VerdictText(cl)})
	}
	if markdown {
		fmt.Fprintf(w, "**%s**\n\n", capitalize(claimsHeading(c)))
		t.RenderMarkdown()
		fmt.Fprintln(w)
		for i, cl := range c.Claims {
			fmt.Fprintf(w, "%d. _%s_\n", i+1, cl.Rule)
		}
		fmt.Fprintln(w)
		return
	}
	fmt.Fprintln(w, claimsHeading(c))
	g := termwidth.Grid{Style: tableStyle(o), Header: []string{"#", "claim", "measured here", "basis", "verdict"},
		Max: map[int]int{1: 44, 2: 44, 4: 36}, Right: map[int]bool{0: true}}
	for i, cl := range c.Claims {
		g.Rows = append(g.Rows, termwidth.GridRow{Cells: []string{strconv.Itoa(i + 1), cl.Claim, cl.Measured, basisOf(cl), VerdictText(cl)}})
	}
	g.Render(w, o.Width)
	fmt.Fprintln(w, "  rules:")
	for i, cl := range c.Claims {
		fmt.Fprintf(w, "  %d. %s\n", i+1, cl.Rule)
	}
	fmt.Fprintln(w)
}

// csvClaims: run = the claim's number, label = the coarse run it is about,
// object/metric what was compared, value = coarse's figure, source = the
// rule, note = "claim | measured | verdict".
func csvClaims(cw *csv.Writer, c *Comparison) error {
	for i, cl := range c.Claims {
		val := ""
		if cl.After != nil {
			val = num(*cl.After)
		}
		note := cl.Claim + " | " + cl.Measured + " | " + VerdictText(cl)
		if err := cw.Write([]string{strconv.Itoa(i + 1), cl.To, "", "claim", "", "", cl.Object, cl.Metric, val, string(cl.Exactness), cl.Rule, note, cl.Unit, ""}); err != nil {
			return err
		}
	}
	return nil
}

// verdictClass colours the html verdict cell.
func verdictClass(cl result.Claim) string {
	switch cl.Verdict {
	case result.Held:
		return "down"
	case result.NotHeld:
		return "up"
	}
	return "muted"
}
