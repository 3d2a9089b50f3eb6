package advise

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/explain"
	"github.com/writeamp/writeamp/result"
)

// Kind is why a change is proposed.
type Kind string

const (
	// Unused: the workload never read the index (no scan in the diagnose
	// window, none on the original since its statistics reset) and it
	// backs no constraint.
	Unused Kind = "unused"
	// Duplicate: another index has the same leading key columns.
	Duplicate Kind = "duplicate"
	// UpdatedKey: the workload's UPDATEs set a column of the index, so no
	// update of the table can be HOT while it exists.
	UpdatedKey Kind = "updated_key"
	// Summarizing: an UpdatedKey B-tree replaced by a BRIN index on the same
	// columns (PostgreSQL 16+, where an update of a column only summarizing
	// indexes hold can still be HOT), keeping range reads.
	Summarizing Kind = "summarizing"
	// Fillfactor: updates moved rows to other pages (newpage updates).
	Fillfactor Kind = "fillfactor"
)

// priority orders the kinds when --max-candidates cuts the list: an
// updated key blocks HOT for every update, a duplicate is pure cost.
var priority = map[Kind]int{UpdatedKey: 0, Summarizing: 1, Duplicate: 2, Unused: 3, Fillfactor: 4}

// Index is one index as the diagnose window saw it.
type Index struct {
	Schema, Table, Name string
	// Columns are the key columns (lower case; an expression as written).
	Columns []string
	// Definition is the server's own (pg_get_indexdef; MariaDB "(a, b)").
	Definition               string
	Method                   string
	Unique, Primary, Partial bool
	// Window figures of the diagnose run; ScansRead says the server
	// counted index scans (InnoDB without performance_schema does not).
	Scans, Entries, LogBytes float64
	ScansRead, EntriesRead   bool
	// OriginalScans are idx_scan on the user's database since its
	// statistics reset (-1: not read); Constraint the constraint it backs.
	OriginalScans int64
	Constraint    string
}

// Update is an UPDATE of the workload: the table and the columns it sets.
type Update struct {
	Table   string
	Columns []string
	Source  string
}

// Candidate is one proposed change with its migration.
type Candidate struct {
	Object string // the index or table, as the migration names it
	Table  string // the table whose writes it changes
	Index  *Index // nil for a table change
	Kind   Kind
	Change string
	Why    []string
	Up     string
	Down   string
	Notes  []string
	weight float64
}

// Diagnosis is what the diagnose window found, the input of Propose.
type Diagnosis struct {
	Dialect string
	// Builtin: the workload recreates its schema for every measurement, so
	// migrations name objects unqualified and the original has no figures.
	Builtin bool
	Run     *result.Run
	Indexes []*Index
	Updates []Update
	// OtherVariants are the built-in workload's variants other than the
	// measured one, for the application-side note.
	OtherVariants []string
	// VersionNum is PostgreSQL's server_version_num, to the major (160000
	// for 16.x; 0: another server or unknown).
	VersionNum int
}

// IndexesOf reads the run's indexes (orig: the user's database's
// idx_scan and constraints by schema.name, nil when not read).
func IndexesOf(r *result.Run, orig map[string]Original) []*Index {
	var out []*Index
	for _, o := range r.Indexes {
		ix := &Index{Schema: o.Schema, Table: o.Table, Name: o.Name, Definition: o.Info["definition"], Method: o.Info["method"],
			Unique: o.Info["unique"] == "true", Primary: o.Info["primary"] == "true", Partial: o.Info["partial"] == "true", OriginalScans: -1}
		if n := o.Info["index_name"]; n != "" {
			ix.Name = n
		}
		if ix.Primary {
			continue // InnoDB's clustered index is the table itself
		}
		if cols := o.Info["columns"]; cols != "" {
			ix.Columns = strings.Split(strings.ToLower(cols), ",")
		} else {
			ix.Columns, ix.Partial = keyColumns(ix.Definition, ix.Partial)
		}
		ix.Scans, ix.ScansRead = o.Metrics["scans"].V(), o.Metrics["scans"].OK()
		ix.Entries, ix.EntriesRead = o.Metrics[result.LeafInserts.Name].V(), o.Metrics[result.LeafInserts.Name].OK()
		ix.LogBytes = o.Metrics["log_bytes"].V()
		if og, ok := orig[o.Schema+"."+ix.Name]; ok {
			ix.OriginalScans, ix.Constraint = og.Scans, og.Constraint
		}
		out = append(out, ix)
	}
	return out
}

// Original is what the user's database says of one index, read only.
type Original struct {
	Scans      int64
	Constraint string
}

var usingRE = regexp.MustCompile(`(?i)\bUSING\s+\w+\s*\(`)

// keyColumns reads the key columns of a PostgreSQL index definition (the
// parenthesised list after USING method), and whether it has a predicate.
func keyColumns(def string, partial bool) ([]string, bool) {
	loc := usingRE.FindStringIndex(def)
	if loc == nil {
		return nil, partial
	}
	depth, start := 1, loc[1]
	var cols []string
	i := start
	for ; i < len(def) && depth > 0; i++ {
		switch def[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				cols = append(cols, def[start:i])
			}
		case ',':
			if depth == 1 {
				cols = append(cols, def[start:i])
				start = i + 1
			}
		}
	}
	for k, c := range cols {
		c = strings.TrimSpace(c)
		// "col DESC NULLS LAST", "col text_pattern_ops": the column is the first word
		if f := strings.Fields(c); len(f) > 0 && !strings.Contains(c, "(") {
			c = f[0]
		}
		cols[k] = strings.ToLower(strings.Trim(c, `"`))
	}
	if i < len(def) && strings.Contains(strings.ToUpper(def[i:]), " WHERE ") {
		partial = true
	}
	return cols, partial
}

// Propose returns the candidate changes, most promising first, at most max.
func Propose(d Diagnosis, max int) ([]Candidate, error) {
	q, err := dialects.QuoterOf(d.Dialect)
	if err != nil {
		return nil, err
	}
	m := migrations{dialect: d.Dialect, q: q, builtin: d.Builtin}
	byIndex := map[*Index]*Candidate{}
	var out []*Candidate
	add := func(ix *Index, k Kind, why string, weight float64) {
		if c := byIndex[ix]; c != nil {
			c.Why = append(c.Why, why)
			if priority[k] < priority[c.Kind] {
				c.Kind = k
			}
			return
		}
		up, down := m.dropIndex(ix)
		c := &Candidate{Object: ix.Name, Table: ix.Table, Index: ix, Kind: k, Change: "drop index " + ix.Name, Why: []string{why}, Up: up, Down: down, weight: weight}
		byIndex[ix] = c
		out = append(out, c)
	}
	droppable := func(ix *Index) bool { return !ix.Unique && !ix.Primary && ix.Constraint == "" && ix.Definition != "" }
	brin := map[*Index]bool{}
	for _, u := range d.Updates {
		for _, ix := range d.Indexes {
			if !strings.EqualFold(ix.Table, u.Table) || !droppable(ix) {
				continue
			}
			for _, c := range u.Columns {
				if slices.Contains(ix.Columns, strings.ToLower(c)) {
					why := fmt.Sprintf("its key holds %s, which the workload's UPDATE of %s sets (%s): every such update writes an entry in each index of the table instead of being HOT", strings.ToLower(c), u.Table, u.Source)
					add(ix, UpdatedKey, why, ix.Entries)
					if c := m.summarizing(d, ix, strings.ToLower(c), u); c != nil && !brin[ix] {
						brin[ix] = true
						out = append(out, c)
					}
					if len(d.OtherVariants) > 0 {
						byIndex[ix].Notes = append(byIndex[ix].Notes, fmt.Sprintf("application-side fix: write %s less often, as the built-in workload's %s variant does (writeamp run --variant %s measures it), keeps the index and its reads", strings.ToLower(c), strings.Join(d.OtherVariants, "/"), d.OtherVariants[0]))
					}
					break
				}
			}
		}
	}
	for _, ix := range d.Indexes {
		if !droppable(ix) || ix.Partial || len(ix.Columns) == 0 {
			continue
		}
		for _, o := range d.Indexes {
			if o == ix || !strings.EqualFold(o.Table, ix.Table) || o.Partial || o.Method != ix.Method || len(o.Columns) < len(ix.Columns) {
				continue
			}
			if !slices.Equal(o.Columns[:len(ix.Columns)], ix.Columns) {
				continue
			}
			// Of two identical droppable indexes drop one, the later by name.
			if len(o.Columns) == len(ix.Columns) && droppable(o) && o.Name > ix.Name {
				continue
			}
			same := "the same key (" + strings.Join(ix.Columns, ", ") + ")"
			if len(o.Columns) > len(ix.Columns) {
				same = "its key (" + strings.Join(ix.Columns, ", ") + ") as leading columns"
			}
			add(ix, Duplicate, fmt.Sprintf("%s has %s: it serves the same reads", o.Name, same), ix.Entries+1e12)
			break
		}
	}
	for _, ix := range d.Indexes {
		if !droppable(ix) || ix.Scans > 0 || ix.OriginalScans > 0 || !ix.ScansRead && ix.OriginalScans < 0 {
			continue // read, or nobody counted its reads
		}
		why := "no index scan in the diagnose window"
		if !ix.ScansRead {
			why = "the server counted no index scans in the diagnose window"
		}
		switch {
		case ix.OriginalScans == 0:
			why += ", none on the database since its statistics reset"
		case d.Builtin:
			why += " (the built-in workload's schema is new for each measurement: the window is all there is)"
		}
		add(ix, Unused, why+", and it backs no constraint", ix.LogBytes)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if priority[out[i].Kind] != priority[out[j].Kind] {
			return priority[out[i].Kind] < priority[out[j].Kind]
		}
		return out[i].weight > out[j].weight
	})
	if d.Dialect == "postgres" && d.Run != nil {
		for _, t := range d.Run.Tables {
			up, newpage := t.Metrics["rows_updated"].V(), t.Metrics["newpage_updates"].V()
			if up == 0 || newpage/up < 0.1 {
				continue
			}
			for _, ff := range []int{90, 70} {
				u, dn := m.fillfactor(t.Schema, t.Name, ff)
				out = append(out, &Candidate{Object: t.Name, Table: t.Name, Kind: Fillfactor, Change: fmt.Sprintf("fillfactor %d on %s", ff, t.Name), Up: u, Down: dn,
					Why:   []string{fmt.Sprintf("%.0f of its %.0f updates moved the row to another page (no room on its own): free space on each page lets them stay (and be HOT)", newpage, up)},
					Notes: []string{"the down migration resets fillfactor to the default; set the table's former value instead if it had one"}})
			}
		}
	}
	if max > 0 && len(out) > max {
		out = out[:max]
	}
	cs := make([]Candidate, len(out))
	for i, c := range out {
		cs[i] = *c
	}
	return cs, nil
}

type migrations struct {
	dialect string
	q       dialects.Quoter
	builtin bool
}

func (m migrations) name(schema, name string) string {
	if m.builtin || schema == "" {
		return m.q.QuoteIdent(name)
	}
	return m.q.QuoteIdent(schema) + "." + m.q.QuoteIdent(name)
}

// dropIndex is the up/down pair that drops ix and recreates it as it was.
func (m migrations) dropIndex(ix *Index) (up, down string) {
	switch m.dialect {
	case "mysql":
		kind := "INDEX"
		if ix.Unique {
			kind = "UNIQUE INDEX"
		}
		t := m.name(ix.Schema, ix.Table)
		return fmt.Sprintf("ALTER TABLE %s DROP INDEX %s;\n", t, m.q.QuoteIdent(ix.Name)),
			fmt.Sprintf("ALTER TABLE %s ADD %s %s %s;\n", t, kind, m.q.QuoteIdent(ix.Name), ix.Definition)
	default:
		def := ix.Definition
		if m.builtin && ix.Schema != "" {
			// the built-in workload applies the migration inside each measurement's own schema
			def = strings.Replace(def, " ON "+ix.Schema+".", " ON ", 1)
			def = strings.Replace(def, " ON "+m.q.QuoteIdent(ix.Schema)+".", " ON ", 1)
		}
		return fmt.Sprintf("DROP INDEX %s;\n", m.name(ix.Schema, ix.Name)), def + ";\n"
	}
}

// summarizing is the BRIN replacement of an updated-key B-tree, where the
// server lets an update of a summarized column stay HOT (explain's rule:
// PostgreSQL 16+) and the key is plain columns; nil otherwise.
func (m migrations) summarizing(d Diagnosis, ix *Index, col string, u Update) *Candidate {
	if d.Dialect != "postgres" || !explain.Summarizing("brin", d.VersionNum) || ix.Method != "btree" || ix.Partial || len(ix.Columns) == 0 {
		return nil
	}
	for _, c := range ix.Columns {
		if strings.ContainsAny(c, "( ") {
			return nil // an expression: BRIN opclasses are per column
		}
	}
	cols := make([]string, len(ix.Columns))
	for i, c := range ix.Columns {
		cols[i] = m.q.QuoteIdent(c)
	}
	drop, recreate := m.dropIndex(ix)
	up := drop + fmt.Sprintf("CREATE INDEX %s ON %s USING brin (%s);\n", m.q.QuoteIdent(ix.Name), m.name(ix.Schema, ix.Table), strings.Join(cols, ", "))
	return &Candidate{Object: ix.Name, Table: ix.Table, Index: ix, Kind: Summarizing,
		Change: fmt.Sprintf("replace index %s by a BRIN index on (%s)", ix.Name, strings.Join(ix.Columns, ", ")),
		Why:    []string{fmt.Sprintf("its key holds %s, which the workload's UPDATE of %s sets (%s); on PostgreSQL %d a BRIN index is summarizing: an update that changes only columns such indexes hold can still be HOT, and range reads of %s keep an index", col, u.Table, u.Source, d.VersionNum/10000, col)},
		Up:     up, Down: drop + recreate, weight: ix.Entries,
		Notes: []string{"BRIN serves a range read only as well as the column follows the table's physical order, and serves neither point lookups nor ORDER BY … LIMIT as the B-tree did: the reads the B-tree served (risks) decide whether this trade is one to make"}}
}

func (m migrations) fillfactor(schema, table string, ff int) (up, down string) {
	t := m.name(schema, table)
	// VACUUM FULL rewrites the table so the existing pages get the free space too
	return fmt.Sprintf("ALTER TABLE %s SET (fillfactor = %d);\nVACUUM FULL %s;\n", t, ff, t),
		fmt.Sprintf("ALTER TABLE %s RESET (fillfactor);\nVACUUM FULL %s;\n", t, t)
}
