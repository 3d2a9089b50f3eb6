package reports

import (
	"fmt"
	"strings"

	"github.com/writeamp/writeamp/result"
)

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
				basis += " (" + rowSources(cols[0].Run) + "): " + NoTableRowsWhy(cols) + ", so other databases' and sessions' rows are in the denominator"
			}
			return "row changed", dens, basis
		}
	}
	return "", make([]float64, len(cols)), "no per-unit figures: no operation count was given and no rows changed to divide by"
}

// NoTableRowsWhy says why runs have no rows changed in the measured
// tables to divide by: a server that does not count rows per table (a
// collector missing them, or tables without row counters, as InnoDB's on
// MariaDB), or else one that does
// (PostgreSQL) where the workload wrote no row to a measured table.
func NoTableRowsWhy(cols []Column) string {
	for _, col := range cols {
		for _, m := range col.Run.Missing {
			if m.Lacking(result.RowsInserted) {
				return "this server counts no rows per table"
			}
		}
		if s := col.Run.TableRows(); s.Counted == 0 && s.Uncounted > 0 {
			return "this server counts no rows per table"
		}
	}
	return "the workload wrote no row to a measured table"
}

// RowsChanged sums the rows inserted, updated and deleted in the run's
// tables; false when no table has those counters.
func RowsChanged(r *result.Run) (float64, bool) { return r.TableRowsChanged() }

func serverRowsChanged(r *result.Run) (float64, bool) { return r.ServerRowsChanged() }

func rowSources(r *result.Run) string {
	var out []string
	for _, m := range result.RowMetrics {
		src, _, _ := strings.Cut(r.Database[m].Source, " (")
		out = append(out, src)
	}
	return strings.Join(out, " + ")
}

// maxNoteObjects bounds the objects a note names: a note naming every index
// of a large catalog is longer than the report it annotates.
const maxNoteObjects = 20

// metricNotes put in the notes what each metric's note says, which only the
// JSON (and the html's hover text) showed before: why an n/a is n/a (rows
// nobody measured included, which the tables leave out), and the caveats
// of the numbers that are there (server-wide counts, sampled statistics,
// a counter that disagrees with the driver). One line per note, naming the
// metrics and objects it applies to.
func metricNotes(c *Comparison) []string {
	type group struct {
		na      bool
		labels  []string
		objects []string
		more    int // objects beyond maxNoteObjects, counted, not named
		seen    map[string]bool
		note    string
	}
	var order []string
	groups := map[string]*group{}
	for _, sec := range c.Sections {
		for _, r := range append(append([]Row{}, sec.Rows...), sec.Unshown...) {
			for _, cell := range r.Cells {
				m := cell.Metric
				if !cell.Present || m.Note == "" {
					continue
				}
				na := !m.OK()
				k := fmt.Sprint(na) + "\x00" + m.Note
				g := groups[k]
				if g == nil {
					g = &group{na: na, note: m.Note, seen: map[string]bool{}}
					groups[k] = g
					order = append(order, k)
				}
				// Seen sets, not scans of the lists: a note shared by every
				// object of a 50k-index catalog made the scans quadratic.
				if l := strings.TrimSpace(r.Label); !g.seen["l\x00"+l] {
					g.seen["l\x00"+l] = true
					g.labels = append(g.labels, l)
				}
				if obj := objectOf(sec); obj != "" && !g.seen["o\x00"+obj] {
					g.seen["o\x00"+obj] = true
					if len(g.objects) < maxNoteObjects {
						g.objects = append(g.objects, obj)
					} else {
						g.more++
					}
				}
			}
		}
	}
	var out []string
	for _, k := range order {
		g := groups[k]
		what := strings.Join(g.labels, ", ")
		if len(g.objects) > 0 {
			what += " of " + strings.Join(g.objects, ", ")
			if g.more > 0 {
				what += fmt.Sprintf(" and %d more objects", g.more)
			}
		}
		if g.na {
			what = "n/a " + what
		}
		out = append(out, fmt.Sprintf("%s: %s", what, g.note))
	}
	return out
}

// objectOf names a table or index section's object ("" for the database).
func objectOf(sec Section) string {
	switch sec.Kind {
	case "table":
		return "table " + sec.Object
	case "index":
		return sec.Object
	}
	return ""
}
