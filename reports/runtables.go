package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/jedib0t/go-pretty/v6/table"
	"github.com/jedib0t/go-pretty/v6/text"

	"github.com/writeamp/writeamp/internal/termwidth"
	"github.com/writeamp/writeamp/result"
)

// runTable is a table of one run beneath the numbers: its log per operation
// of the built-in workload, its top statements.
type runTable struct {
	Title  string
	Header []string
	Rows   [][]string
	Foot   []string
}

// shownTableStatements is how many statements a report's table lists (the
// JSON keeps up to measure's topStatements).
const shownTableStatements = 10

// runTables are the per-run tables of a comparison, in column order.
func runTables(c *Comparison) []runTable {
	var out []runTable
	for _, col := range c.Columns {
		if t, ok := operationTable(col); ok {
			out = append(out, t)
		}
		if t, ok := statementTable(col); ok {
			out = append(out, t)
		}
	}
	return out
}

func bytesCell(m result.Metric) string {
	if !m.OK() {
		return "n/a"
	}
	return result.FormatBytes(m.V())
}

// operationTable: what each operation's own transactions wrote, the
// records of none, and their sum against the window's in-scope log.
func operationTable(col Column) (runTable, bool) {
	oc := col.Run.OperationCosts
	if oc == nil {
		return runTable{}, false
	}
	t := runTable{Title: "Log per operation · " + col.Label,
		Header: []string{"operation", "count", "transactions", "log bytes", "per operation", "of which indexes", "records", "fpi bytes", "index entries", "largest", "basis"}}
	all := oc.Operations
	if oc.Unattributed != nil {
		all = append(all, *oc.Unattributed)
	}
	for _, c := range all {
		lb := c.Metrics[result.LogBytes.Name]
		name, per := c.Operation, ""
		if name == "" {
			name = "(no operation)"
		}
		if c.Count > 0 && lb.OK() {
			per = result.FormatBytes(lb.V() / float64(c.Count))
		}
		var ixBytes float64
		ixs := 0
		var largest []string
		for _, o := range c.Objects {
			b := o.Metrics[result.LogBytes.Name].V()
			if o.Level == "index" && b > 0 {
				ixBytes += b
				ixs++
			}
			if len(largest) < 3 && lb.V() > 0 {
				obj := o.Name[strings.LastIndex(o.Name, ".")+1:]
				if obj == "" {
					obj = "commit records"
				}
				largest = append(largest, fmt.Sprintf("%s %.0f%%", obj, 100*b/lb.V()))
			}
		}
		of := fmt.Sprintf("%s in %d indexes", result.FormatBytes(ixBytes), ixs)
		if ixs == 0 {
			of = "none"
		}
		cnt := ""
		if c.Count > 0 {
			cnt = count(float64(c.Count))
		}
		t.Rows = append(t.Rows, []string{name, cnt, count(float64(c.Transactions)), bytesCell(lb), per, of,
			count(c.Metrics[result.LogRecords.Name].V()), bytesCell(c.Metrics[result.FpiBytes.Name]),
			count(c.Metrics[result.LeafInserts.Name].V()), strings.Join(largest, ", "), string(lb.Exactness)})
	}
	t.Rows = append(t.Rows, []string{"sum", "", "", bytesCell(oc.LogBytes), "", "", "", "", "", "", string(oc.LogBytes.Exactness)})
	t.Foot = append(t.Foot, fmt.Sprintf("source: %s; the sum is the window's in-scope log (log_bytes_in_scope %s)", oc.Source, bytesCell(oc.InScope)))
	if oc.LogBytes.Note != "" {
		t.Foot = append(t.Foot, oc.LogBytes.Note)
	}
	t.Foot = append(t.Foot, "(no operation): in-scope records of no transaction an operation named: records without a transaction id (on-access pruning, vacuum), aborted attempts of retried operations, other sessions on these tables")
	if oc.Overhead != "" {
		t.Foot = append(t.Foot, "cost of the split: "+oc.Overhead)
	}
	return t, true
}

// statementTable: the run's top statements by log bytes (by rows where
// the view keeps no per-statement log), each with explain's prediction and,
// beneath, how the prediction compares with the measured index entries.
func statementTable(col Column) (runTable, bool) {
	sec := col.Run.Statements
	if sec == nil || len(sec.Top) == 0 {
		return runTable{}, false
	}
	by := "log bytes"
	if sec.LogBytes == nil {
		by = "rows (the view keeps no per-statement log)"
	}
	t := runTable{Title: fmt.Sprintf("Top statements by %s · %s (%s)", by, col.Label, sec.View),
		Header: []string{"#", "statement", "calls", "rows", "log bytes", "predicted", "basis"}}
	var gaps []string
	for i, st := range sec.Top {
		if i == shownTableStatements {
			break
		}
		text := strings.Join(strings.Fields(st.Text), " ")
		if len(text) > 90 {
			text = text[:87] + "..."
		}
		lb := "n/a"
		if st.LogBytes.OK() {
			lb = result.FormatBytes(st.LogBytes.V())
		}
		ex := st.Rows.Exactness
		if st.LogBytes.OK() {
			ex = result.Weaker(ex, st.LogBytes.Exactness)
		}
		t.Rows = append(t.Rows, []string{fmt.Sprint(i + 1), text, count(st.Calls.V()), count(st.Rows.V()), lb, predictedCell(st.Predicted), string(ex)})
		if p := st.Predicted; p != nil && p.Comparison != "" {
			gaps = append(gaps, fmt.Sprintf("#%d predicted vs measured (%s): %s", i+1, p.Table, p.Comparison))
		}
	}
	if n := len(sec.Top) + sec.More - shownTableStatements; n > 0 {
		t.Foot = append(t.Foot, fmt.Sprintf("%d more statements ran in the window (the result JSON lists them)", n))
	}
	if sec.LogBytes != nil && sec.Remainder != nil {
		t.Foot = append(t.Foot, fmt.Sprintf("the statements' log bytes sum to %s (%s); the window's other %s (%s): %s", result.FormatBytes(sec.LogBytes.V()), sec.LogBytes.Exactness,
			result.FormatBytes(sec.Remainder.V()), sec.Remainder.Exactness, sec.Remainder.Note))
	}
	if sec.Rows != nil && sec.RowsRemainder != nil {
		t.Foot = append(t.Foot, fmt.Sprintf("the statements' rows affected sum to %s (%s); the tables in scope wrote %s rows (%s), the other %s (%s): %s", count(sec.Rows.V()), sec.Rows.Exactness,
			count(sec.RowsInScope.V()), sec.RowsInScope.Exactness, count(sec.RowsRemainder.V()), sec.RowsRemainder.Exactness, sec.RowsRemainder.Note))
	}
	t.Foot = append(t.Foot, gaps...)
	if len(gaps) > 0 || hasPrediction(sec) {
		t.Foot = append(t.Foot, "predicted: writeamp explain's rules from the parse tree and the catalog (HOT, index entries each written row adds); the measured side is the window's per-index leaf inserts")
	}
	t.Foot = append(t.Foot, sec.Notes...)
	if sec.Observer > 0 {
		t.Foot = append(t.Foot, fmt.Sprintf("left out: %d entries of writeamp's own reads (its snapshots; they write no log)", sec.Observer))
	}
	if sec.Merge != "" {
		t.Foot = append(t.Foot, sec.Merge)
	}
	return t, true
}

// predictedCell is a statement's prediction in a few words: whether an
// UPDATE can be HOT (PostgreSQL) and the index entries each row adds ("" for
// a statement explain does not predict: no write, or not parsed).
func predictedCell(p *result.Predicted) string {
	if p == nil {
		return ""
	}
	var parts []string
	switch p.HOT {
	case "no":
		parts = append(parts, "not HOT")
	case "possible":
		parts = append(parts, "HOT possible")
	}
	bound := ""
	if p.AtMost {
		bound = "≤"
	}
	parts = append(parts, fmt.Sprintf("%s%g entries/row", bound, p.EntriesPerRow))
	return strings.Join(parts, ", ")
}

func hasPrediction(sec *result.Statements) bool {
	for i, st := range sec.Top {
		if i < shownTableStatements && st.Predicted != nil {
			return true
		}
	}
	return false
}

// writeAfterTable is what follows the numbers in a terminal or markdown
// report: the timeline, then the runs' own tables.
func writeAfterTable(w io.Writer, c *Comparison, o Options, markdown bool) {
	writeTimeline(w, c, o, markdown)
	for _, rt := range runTables(c) {
		fmt.Fprintln(w)
		if markdown {
			fmt.Fprintf(w, "**%s**\n\n", rt.Title)
		} else {
			fmt.Fprintln(w, rt.Title)
		}
		right := map[int]bool{}
		for i, s := range rt.Header {
			if s != "operation" && s != "statement" && s != "largest" && s != "basis" && s != "of which indexes" && s != "predicted" {
				right[i] = true
			}
		}
		if !markdown {
			g := termwidth.Grid{Style: tableStyle(o), Header: rt.Header, Right: right}
			for _, r := range rt.Rows {
				g.Rows = append(g.Rows, termwidth.GridRow{Cells: r})
			}
			g.Render(w, o.Width)
		} else {
			t := table.NewWriter()
			t.SetOutputMirror(w)
			h := table.Row{}
			for _, s := range rt.Header {
				h = append(h, s)
			}
			t.AppendHeader(h)
			var cfg []table.ColumnConfig
			for i := range rt.Header {
				if right[i] {
					cfg = append(cfg, table.ColumnConfig{Number: i + 1, Align: text.AlignRight})
				}
			}
			t.SetColumnConfigs(cfg)
			for _, r := range rt.Rows {
				row := table.Row{}
				for _, s := range r {
					row = append(row, s)
				}
				t.AppendRow(row)
			}
			t.RenderMarkdown()
		}
		for _, f := range rt.Foot {
			if markdown {
				fmt.Fprintf(w, "\n- %s", f)
			} else {
				fmt.Fprintf(w, "  %s\n", f)
			}
		}
		if markdown && len(rt.Foot) > 0 {
			fmt.Fprintln(w)
		}
	}
}
