package reports

import (
	"fmt"
	"maps"
	"slices"

	"github.com/jedib0t/go-pretty/v6/table"

	"github.com/writeamp/writeamp/result"
)

// runRows are the driver's own figures: time, throughput, latency, errors.
func runRows(c *Comparison) []table.Row {
	var rows []table.Row
	pad := func(r table.Row) table.Row {
		for len(r) < len(header(c)) {
			r = append(r, "")
		}
		return r
	}
	for _, rl := range RunLines(c) {
		r := table.Row{rl.Label}
		for _, v := range rl.Values {
			r = append(r, v)
			if c.PerOp != "" {
				r = append(r, "")
			}
		}
		rows = append(rows, pad(r))
	}
	return rows
}

// RunLine is one of the driver's own figures across the runs.
type RunLine struct {
	Label  string
	Values []string
}

// RunLines are the figures the workload driver measured rather than the
// server: time, throughput, latency percentiles, errors; for a sweep the
// concurrency, for a wrapped command its exit status.
func RunLines(c *Comparison) []RunLine {
	var out []RunLine
	line := func(label string, f func(*result.Run) string) {
		rl := RunLine{Label: label}
		for _, col := range c.Columns {
			rl.Values = append(rl.Values, f(col.Run))
		}
		out = append(out, rl)
	}
	any := func(f func(*result.Run) bool) bool {
		for _, col := range c.Columns {
			if f(col.Run) {
				return true
			}
		}
		return false
	}
	if any(func(r *result.Run) bool { return r.Concurrency > 0 }) {
		line("concurrency", func(r *result.Run) string { return fmt.Sprint(r.Concurrency) })
	}
	if any(func(r *result.Run) bool { return len(r.Command) > 0 }) {
		line("exit status", func(r *result.Run) string {
			if r.ExitCode == nil {
				return ""
			}
			return fmt.Sprint(*r.ExitCode)
		})
	}
	line("elapsed", func(r *result.Run) string { return fmt.Sprintf("%.1f s", r.ElapsedSeconds) })
	if !sameOperations(c.Columns) {
		ops := map[string]bool{}
		for _, col := range c.Columns {
			for k := range col.Run.Operations {
				ops[k] = true
			}
		}
		for _, op := range slices.Sorted(maps.Keys(ops)) {
			line(op, func(r *result.Run) string {
				if n, ok := r.Operations[op]; ok {
					return count(float64(n))
				}
				return ""
			})
		}
	}
	if c.PerOp == "row changed" {
		rl := RunLine{Label: "rows changed"}
		for i := range c.Columns {
			rl.Values = append(rl.Values, count(c.Denominators[i]))
		}
		out = append(out, rl)
	}
	line("operations/s", func(r *result.Run) string {
		if len(r.Operations) == 0 {
			return "—"
		}
		return count(float64(int64(r.Throughput)))
	})
	ops := map[string]bool{}
	for _, col := range c.Columns {
		for k := range col.Run.LatencyMS {
			ops[k] = true
		}
	}
	for _, op := range slices.Sorted(maps.Keys(ops)) {
		line(op+" p50/p95/p99/max ms", func(r *result.Run) string {
			l, ok := r.LatencyMS[op]
			if !ok {
				return ""
			}
			return fmt.Sprintf("%.2f / %.2f / %.2f / %.1f", l.P50, l.P95, l.P99, l.Max)
		})
	}
	if any(func(r *result.Run) bool { return len(r.Errors) > 0 }) {
		line("errors", func(r *result.Run) string {
			var n int64
			for _, v := range r.Errors {
				n += v
			}
			return count(float64(n))
		})
	}
	return out
}

// sameOperations reports whether every run did the same operation counts,
// which the subtitle then states once.
func sameOperations(cols []Column) bool {
	for _, col := range cols[1:] {
		a, b := cols[0].Run.Operations, col.Run.Operations
		if len(a) != len(b) {
			return false
		}
		for k, v := range a {
			if b[k] != v {
				return false
			}
		}
	}
	return true
}
