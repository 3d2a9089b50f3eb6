package reports

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/writeamp/writeamp/result"
)

// Comparison is the side-by-side view of several runs.
type Comparison struct {
	Title    string
	Subtitle []string
	Columns  []Column
	PerOp    string // the operation values are normalized by ("refresh"), or ""
	// Denominators are each column's count of PerOp (operations, or rows
	// changed when the runs share no operation).
	Denominators []float64
	Sections     []Section
	Sources      []string // footnotes, numbered from 1
	Notes        []string // warnings, missing collectors, assumptions
	// Findings lead every format; FindingsRule says when a change counts.
	Findings     []result.Finding
	FindingsRule string
	// Timeline is the sampled rates of runs measured with --interval.
	Timeline *Timeline
	// Claims are what the workload's registered claims say of this
	// comparison (RegisterClaims), under ClaimsHeading.
	Claims        []result.Claim
	ClaimsHeading string
}

// Column is one run.
type Column struct {
	Label string
	Run   *result.Run
}

// Section groups rows (the database, one table, one index).
type Section struct {
	Kind   string // "database", "table", "index"
	Title  string
	Object string // the table or index name ("" for the database)
	Table  string // an index's table
	// Part: the object is a part of another object of the same run (a
	// partition of a partitioned table, a TOAST table of its table) whose
	// figures include its own, so totals over the sections skip it.
	Part bool
	Rows []Row
	// Unshown are rows left out of the tables because no run measured them;
	// the notes still say why.
	Unshown []Row
}

// Row is one metric across the runs.
type Row struct {
	Metric  string
	Label   string
	Cells   []Cell
	Change  string  // last column vs first
	ChangeV float64 // the same as a number (relative, or points for ratios); NaN if none
	Basis   string  // "exact", "derived", "exact/derived" ...
	Refs    []int   // footnotes
}

// Cell is one run's value of a row.
type Cell struct {
	Present bool // the object/metric exists in this run
	Metric  result.Metric
	PerOp   *float64
	Text    string
	PerText string
}

// Build makes the comparison of runs (variants of one result, or runs from
// several result files, labelled).
func Build(title string, subtitle []string, cols []Column) *Comparison {
	c := &Comparison{Title: title, Subtitle: subtitle, Columns: cols}
	var basis string
	c.PerOp, c.Denominators, basis = normalization(cols)
	src := map[string]int{}
	ref := func(s string) int {
		if s == "" {
			return 0
		}
		if n, ok := src[s]; ok {
			return n
		}
		c.Sources = append(c.Sources, s)
		src[s] = len(c.Sources)
		return src[s]
	}
	// Database section.
	dbm := func(r *result.Run) (map[string]result.Metric, bool) { return r.Database, true }
	c.Sections = append(c.Sections, c.section("database", "Database", cols, dbm, ref))
	// Tables, then indexes grouped under their table, in name order.
	// Each run's objects are looked up by name once per section: a map per
	// run keeps that linear in objects (Run.Table/Index scan the slice, which
	// made a 50k-index comparison quadratic).
	tables, indexes := byName(cols, func(r *result.Run) []result.Object { return r.Tables }),
		byName(cols, func(r *result.Run) []result.Object { return r.Indexes })
	tablesCounted, indexesCounted := map[*result.Run]func(result.Object) bool{}, map[*result.Run]func(result.Object) bool{}
	for _, col := range cols {
		tablesCounted[col.Run], indexesCounted[col.Run] = result.Counted(col.Run.Tables), result.Counted(col.Run.Indexes)
	}
	for _, t := range objectNames(cols, func(r *result.Run) []result.Object { return r.Tables }) {
		get := func(r *result.Run) (map[string]result.Metric, bool) {
			if o := tables[r][strings.ToLower(t)]; o != nil {
				return o.Metrics, true
			}
			return nil, false
		}
		sec := c.section("table", "Table "+t, cols, get, ref)
		sec.Object = t
		sec.Part = isPart(cols, tables, tablesCounted, t)
		c.Sections = append(c.Sections, sec)
	}
	for _, ix := range objectNames(cols, func(r *result.Run) []result.Object { return r.Indexes }) {
		key := strings.ToLower(ix)
		get := func(r *result.Run) (map[string]result.Metric, bool) {
			if o := indexes[r][key]; o != nil {
				return o.Metrics, true
			}
			return nil, false
		}
		title, table := "Index "+ix, ""
		for _, col := range cols {
			if o := indexes[col.Run][key]; o != nil && o.Table != "" {
				title += " on " + o.Table
				table = o.Table
				break
			}
		}
		sec := c.section("index", title, cols, get, ref)
		sec.Object, sec.Table = ix, table
		sec.Part = isPart(cols, indexes, indexesCounted, ix)
		c.Sections = append(c.Sections, sec)
	}
	for _, col := range cols {
		prefix := ""
		if len(cols) > 1 {
			prefix = col.Label + ": "
		}
		for _, w := range col.Run.Warnings {
			c.Notes = append(c.Notes, prefix+w)
		}
		for _, m := range col.Run.Missing {
			n := prefix + "not measured: " + m.Collector + ": " + m.Reason
			if m.Fix != "" {
				n += " (fix: " + m.Fix + ")"
			}
			c.Notes = append(c.Notes, n)
		}
		for op, n := range col.Run.Errors {
			c.Notes = append(c.Notes, fmt.Sprintf("%s%d %s operations failed and are not counted", prefix, n, op))
		}
	}
	if basis != "" {
		c.Notes = append(c.Notes, basis)
	}
	c.Notes = append(c.Notes, metricNotes(c)...)
	c.Timeline = buildTimeline(c)
	c.Notes = result.Unique(c.Notes)
	return c
}

func commonMainOp(cols []Column) string {
	op := ""
	for i, col := range cols {
		m := col.Run.MainOperation
		if i == 0 {
			op = m
		} else if m != op {
			return ""
		}
	}
	return Singular(op)
}

// Singular turns an operation count's name into one operation ("refreshes" -> "refresh").
func Singular(op string) string { return result.Singular(op) }

// isPart reports whether the named object is, in the first run that has
// it, a part of another object listed in that run (result.Counted).
func isPart(cols []Column, objs map[*result.Run]map[string]*result.Object, counted map[*result.Run]func(result.Object) bool, name string) bool {
	for _, col := range cols {
		if o := objs[col.Run][strings.ToLower(name)]; o != nil {
			return o.PartOf() != "" && !counted[col.Run](*o)
		}
	}
	return false
}

// byName maps each run's objects by lower-case name, the first of a name
// winning as Run.Table and Run.Index have it.
func byName(cols []Column, list func(*result.Run) []result.Object) map[*result.Run]map[string]*result.Object {
	out := make(map[*result.Run]map[string]*result.Object, len(cols))
	for _, col := range cols {
		objs := list(col.Run)
		m := make(map[string]*result.Object, len(objs))
		for i := range objs {
			k := strings.ToLower(objs[i].Name)
			if _, dup := m[k]; !dup {
				m[k] = &objs[i]
			}
		}
		out[col.Run] = m
	}
	return out
}

func objectNames(cols []Column, list func(*result.Run) []result.Object) []string {
	seen := map[string]bool{}
	var names []string
	type key struct{ table, name string }
	var keys []key
	for _, col := range cols {
		for _, o := range list(col.Run) {
			n := strings.ToLower(o.Name)
			if !seen[n] {
				seen[n] = true
				keys = append(keys, key{strings.ToLower(o.Table), o.Name})
			}
		}
	}
	sort.SliceStable(keys, func(i, j int) bool {
		if keys[i].table != keys[j].table {
			return keys[i].table < keys[j].table
		}
		return strings.ToLower(keys[i].name) < strings.ToLower(keys[j].name)
	})
	for _, k := range keys {
		names = append(names, k.name)
	}
	return names
}

// section lays out one object's metrics in the catalogue's order, leaving
// out what the catalogue keeps to the json and csv.
func (c *Comparison) section(kind, title string, cols []Column,
	get func(*result.Run) (map[string]result.Metric, bool), ref func(string) int) Section {
	sec := Section{Kind: kind, Title: title}
	names := map[string]bool{}
	for _, col := range cols {
		ms, _ := get(col.Run)
		for n := range ms {
			if info(n).Show != result.JSONOnly {
				names[n] = true
			}
		}
	}
	metrics := slices.Collect(maps.Keys(names))
	result.SortNames(metrics)
	for _, name := range metrics {
		row := Row{Metric: name, Label: labelOf(name), ChangeV: math.NaN()}
		bases := map[string]bool{}
		var basisOrder, sources []string
		allNA, allZero, top := true, true, 0.0
		for ci, col := range cols {
			ms, present := get(col.Run)
			cell := Cell{Present: present}
			m, ok := ms[name]
			if !present {
				cell.Text = "—"
			} else if !ok {
				cell.Text = "·"
			} else {
				cell.Metric = m
				if m.OK() {
					allNA = false
					if m.V() != 0 {
						allZero = false
					}
					top = max(top, m.V())
					cell.Text = result.FormatTotal(name, m.V())
					if c.PerOp != "" && !isRatio(name) && !info(name).Total && !ownRate(name) {
						if n := c.Denominators[ci]; n > 0 {
							v := m.V() / n
							cell.PerOp = &v
							cell.PerText = result.FormatPerUnit(name, v)
						}
					}
				} else {
					cell.Text = "n/a"
				}
				b := string(m.Exactness)
				if !bases[b] {
					bases[b] = true
					basisOrder = append(basisOrder, b)
				}
				sources = append(sources, m.Source)
			}
			row.Cells = append(row.Cells, cell)
		}
		if allNA && kind != "database" && name != result.LeafInserts.Name {
			sec.Unshown = append(sec.Unshown, row) // only adds noise to the table; the notes say why
			continue
		}
		if allZero && info(name).Show == result.WhenNonZero || top < result.MinShownShare && info(name).Show == result.WhenShare {
			continue
		}
		for _, src := range sources {
			if r := ref(src); r > 0 && !containsInt(row.Refs, r) {
				row.Refs = append(row.Refs, r)
			}
		}
		row.Basis = strings.Join(basisOrder, "/")
		row.Change, row.ChangeV = change(name, row.Cells, c.PerOp != "")
		sec.Rows = append(sec.Rows, row)
	}
	return sec
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// change compares the last column with the first: per operation when the
// runs have one, relative for counts, in points for ratios.
func change(name string, cells []Cell, perOp bool) (string, float64) {
	if len(cells) < 2 {
		return "", math.NaN()
	}
	a, b := cells[0], cells[len(cells)-1]
	if !a.Present || !b.Present {
		return "", math.NaN()
	}
	if !a.Metric.OK() || !b.Metric.OK() {
		return "", math.NaN()
	}
	if isRatio(name) {
		d := 100 * (b.Metric.V() - a.Metric.V())
		return fmt.Sprintf("%+.1f pt", d), d
	}
	x, y := a.Metric.V(), b.Metric.V()
	if perOp && a.PerOp != nil && b.PerOp != nil {
		x, y = *a.PerOp, *b.PerOp
	}
	switch {
	case x == 0 && y == 0:
		return "=", 0
	case x == 0:
		return "new", math.Inf(1)
	}
	d := 100 * (y - x) / math.Abs(x)
	if math.Abs(d) < 0.05 {
		return "=", 0
	}
	return fmt.Sprintf("%+.1f%%", d), d
}
