package reports

import (
	"fmt"
	"strings"

	"github.com/writeamp/writeamp/result"
)

var rowMetrics = []string{"rows_inserted", "rows_updated", "rows_deleted"}

// normalization picks what every column is divided by: the runs' common
// main operation when each has a count of it, else the rows changed in the
// measured tables (a wrapped command or a diff has no operation count, and
// "log bytes per row changed" still compares a before/after migration), else
// the rows the whole server changed, for servers that count rows only
// server-wide (InnoDB on MariaDB); basis says which, for the notes.
func normalization(cols []Column) (perOp string, dens []float64, basis string) {
	dens = make([]float64, len(cols))
	if op := commonMainOp(cols); op != "" {
		ok := true
		for i, col := range cols {
			_, n := col.Run.Main()
			dens[i] = float64(n)
			ok = ok && n > 0
		}
		if ok {
			return op, dens, ""
		}
	}
	for _, level := range []struct {
		rows func(*result.Run) (float64, bool)
		what string
	}{{RowsChanged, "in the measured tables"}, {serverRowsChanged, "by the whole server"}} {
		ok := true
		for i, col := range cols {
			n, has := level.rows(col.Run)
			ok = ok && has && n > 0
			dens[i] = n
		}
		if ok {
			basis := "per row changed = rows inserted + updated + deleted " + level.what
			if level.what == "by the whole server" {
				basis += " (" + rowSources(cols[0].Run) + "): this server counts no rows per table, so other databases' and sessions' rows are in the denominator"
			}
			return "row changed", dens, basis
		}
	}
	return "", make([]float64, len(cols)), "no per-unit figures: no operation count was given and no rows changed to divide by"
}

// RowsChanged sums the rows inserted, updated and deleted in the run's
// tables; false when no table has those counters.
func RowsChanged(r *result.Run) (float64, bool) {
	var n float64
	ok := false
	for _, t := range r.Tables {
		for _, m := range rowMetrics {
			if v, has := t.Metrics[m]; has && v.OK() {
				n += v.V()
				ok = true
			}
		}
	}
	return n, ok
}

// serverRowsChanged is the same sum over the database-wide row counters.
func serverRowsChanged(r *result.Run) (float64, bool) {
	var n float64
	ok := false
	for _, m := range rowMetrics {
		if v, has := r.Database[m]; has && v.OK() {
			n += v.V()
			ok = true
		}
	}
	return n, ok
}

func rowSources(r *result.Run) string {
	var out []string
	for _, m := range rowMetrics {
		src, _, _ := strings.Cut(r.Database[m].Source, " (")
		out = append(out, src)
	}
	return strings.Join(out, " + ")
}

// unavailableNotes says why each n/a in the tables is n/a: the reason is in
// each metric's note, which only the JSON showed before. One line per
// reason, naming the objects it applies to.
func unavailableNotes(c *Comparison) []string {
	type group struct {
		label   string
		objects []string
	}
	var order []string
	groups := map[string]*group{}
	for _, sec := range c.Sections {
		for _, r := range sec.Rows {
			for _, cell := range r.Cells {
				if !cell.Present || cell.Metric.OK() || cell.Metric.Exactness != result.Unavailable || cell.Metric.Note == "" {
					continue
				}
				k := r.Metric + "\x00" + cell.Metric.Note
				g := groups[k]
				if g == nil {
					g = &group{label: strings.TrimSpace(r.Label)}
					groups[k] = g
					order = append(order, k)
				}
				if obj := objectOf(sec); obj != "" && !contains(g.objects, obj) {
					g.objects = append(g.objects, obj)
				}
			}
		}
	}
	var out []string
	for _, k := range order {
		g := groups[k]
		_, note, _ := strings.Cut(k, "\x00")
		what := g.label
		if len(g.objects) > 0 {
			what += " of " + strings.Join(g.objects, ", ")
		}
		out = append(out, fmt.Sprintf("n/a %s: %s", what, note))
	}
	return out
}

// objectOf names a table or index section's object ("" for the database).
func objectOf(sec Section) string {
	switch sec.Kind {
	case "table":
		return "table " + strings.TrimPrefix(sec.Title, "Table ")
	case "index":
		name, _, _ := strings.Cut(strings.TrimPrefix(sec.Title, "Index "), " on ")
		return name
	}
	return ""
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
