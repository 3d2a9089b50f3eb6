package reports

import (
	"fmt"
	"strings"

	"github.com/writeamp/writeamp/result"
)

// copiesOf reports whether the comparison is one window on a server and
// the copies measured in it (measure or snapshot --node): every column after
// the first is a copy of the first, not a variant, so "the last run against
// the first" would compare a standby's replay with its primary's writes.
func copiesOf(c *Comparison) bool {
	if len(c.Columns) < 2 || c.Columns[0].Run == nil {
		return false
	}
	for _, col := range c.Columns[1:] {
		if col.Run == nil || col.Run.NodeOf == "" || col.Run.NodeOf != c.Columns[0].Run.Variant {
			return false
		}
	}
	return true
}

// copyMetrics are what a copy's finding names, in this order: its own log,
// what it replayed of the primary's (a PostgreSQL standby) or applied of
// its binary log (a MySQL/MariaDB replica), what the
// cluster delivered to it and what it replicated itself (a Galera node).
var copyMetrics = []*result.Info{result.LogBytes, result.ReplayedLogBytes, result.AppliedLogBytes, result.ActionBytesReceived, result.WritesetBytesReplicated}

// copyFindings are, after the primary's costs, what its window cost each
// copy, and the cluster's log: every node's own.
func copyFindings(c *Comparison) []result.Finding {
	var db Section
	for _, s := range c.Sections {
		if s.Kind == "database" {
			db = s
		}
	}
	var out []result.Finding
	total, counted := 0.0, 0
	exact := result.Exact
	for i, col := range c.Columns {
		var parts []string
		e := result.Exact
		var first *float64
		var metric string
		for _, m := range copyMetrics {
			cell, ok := cellOf(db, m.Name, i)
			if !ok {
				continue
			}
			v, ok := value(c, m.Name, cell)
			// A copy's figure that prints as zero (a cluster message of 8
			// bytes over a thousand rows) is left out, its own log never.
			if !ok || (m != result.LogBytes && (v == 0 || strings.Trim(fmtVal(c, m.Name, v), "0. B") == "")) {
				continue
			}
			if m == result.LogBytes {
				total += v
				counted++
				exact = result.Weaker(exact, cell.Metric.Exactness)
			}
			if i == 0 && m == result.LogBytes {
				// The server's own log is its first cost finding.
				continue
			}
			if first == nil {
				first, metric = ptr(v), m.Name
			}
			e = result.Weaker(e, cell.Metric.Exactness)
			what := info(m.Name).Label
			if m == result.LogBytes {
				what = "of its own log"
			}
			parts = append(parts, fmtVal(c, m.Name, v)+" "+what)
		}
		if len(parts) == 0 {
			continue
		}
		who := fmt.Sprintf("%s (a copy of %s in the same window)", col.Label, c.Columns[0].Label)
		if i == 0 {
			who = col.Label
		}
		out = append(out, result.Finding{Metric: metric, Level: "database", Object: col.Label, Value: first, Exactness: e,
			Text: fmt.Sprintf("%s: %s (%s)", who, strings.Join(parts, ", "), e)})
		if f, ok := replayFinding(c, i); ok && i > 0 {
			out = append(out, f)
		}
	}
	if counted == len(c.Columns) {
		out = append(out, result.Finding{Metric: result.LogBytes.Name, Level: "database", Object: "cluster", Value: ptr(total), Exactness: exact,
			Text: fmt.Sprintf("the cluster wrote %s of log%s on %d nodes, each node's own log bytes summed (%s)", fmtVal(c, result.LogBytes.Name, total), perUnit(c), counted, exact)})
	}
	return out
}

// cellOf is the metric's cell of column i in a section.
func cellOf(sec Section, metric string, i int) (Cell, bool) {
	for _, r := range sec.Rows {
		if r.Metric == metric && i < len(r.Cells) {
			return r.Cells[i], true
		}
	}
	return Cell{}, false
}
