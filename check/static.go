package check

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/writeamp/writeamp/check/sqlfile"
	"github.com/writeamp/writeamp/internal/safeio"
	"github.com/writeamp/writeamp/sqlparse"
)

// IndexDef is an index a migration creates.
type IndexDef struct {
	sqlparse.Index
	Source string // file
}

// Update is a kind of UPDATE statement the workload runs.
type Update struct {
	Table   string
	Columns []string
	Example string // the statement (shortened)
	Source  string // file, or the statement name of a built-in workload
}

// IndexesIn finds the indexes the files' statements create (CREATE INDEX,
// ALTER TABLE … ADD PRIMARY KEY/UNIQUE/INDEX), read by sqlparse with the
// dialect's rules: on PostgreSQL from PostgreSQL's own parse tree, so key
// expressions, INCLUDE columns and partial-index predicates count.
// skipped lists statements PostgreSQL's parser could not read.
func IndexesIn(dialect string, files []sqlfile.File) (idx []IndexDef, skipped []string) {
	for _, f := range files {
		for _, ix := range sqlparse.Indexes(dialect, f.Statements) {
			if ix.Name == "" {
				ix.Name = "(unnamed index)"
			}
			idx = append(idx, IndexDef{Index: ix, Source: f.Path})
		}
		for _, st := range f.Statements {
			if err := st.ParseError(); err != nil {
				skipped = append(skipped, fmt.Sprintf("%s line %d (%s): %v", f.Path, st.Line, short(st.Text), err))
			}
		}
	}
	return idx, skipped
}

// UpdatesIn finds the UPDATE statements of SQL text and the columns they
// set (the first of each table and set of columns).
func UpdatesIn(dialect, text, source string) ([]Update, error) {
	ups, err := sqlparse.WorkloadUpdates(dialect, text)
	if err != nil {
		return nil, err
	}
	var out []Update
	seen := map[string]bool{}
	for _, u := range ups {
		cols := append([]string(nil), u.Columns...)
		sort.Strings(cols)
		k := strings.ToLower(u.Table + "/" + strings.Join(cols, ","))
		if len(cols) == 0 || seen[k] {
			continue
		}
		seen[k] = true
		ex := strings.Join(strings.Fields(u.Statement), " ")
		if len(ex) > 120 {
			ex = ex[:117] + "..."
		}
		out = append(out, Update{Table: u.Table, Columns: cols, Example: ex, Source: source})
	}
	return out, nil
}

// UpdatesOfCommand scans a wrapped command's arguments: SQL files it names
// (*.sql) and inline SQL (e.g. psql -c "UPDATE ..."). A heuristic: it sees
// only SQL that appears literally; what it cannot read is in notes. A shell
// command line in one argument (bash -c 'psql "$DSN" -f work.sql', as the
// GitHub Action runs its workload input) is looked into word by word for the
// files it names.
func UpdatesOfCommand(dialect string, args []string) (out []Update, notes []string) {
	seen := map[string]bool{}
	file := func(a string) {
		if seen[a] {
			return
		}
		seen[a] = true
		// Only regular files: the command may name a FIFO or device it reads itself.
		data, err := safeio.ReadFile(a, 64<<20)
		if err != nil {
			return
		}
		ups, err := UpdatesIn(dialect, string(data), a)
		if err != nil {
			notes = append(notes, fmt.Sprintf("static check: %s not read: %v", a, err))
		}
		out = append(out, ups...)
	}
	isSQL := func(a string) bool { return strings.HasSuffix(strings.ToLower(a), ".sql") }
	for _, a := range args {
		if _, err := os.Stat(a); err == nil && isSQL(a) {
			file(a)
			continue
		}
		if strings.Contains(strings.ToLower(a), "update") {
			ups, _ := UpdatesIn(dialect, a, "the command line") // an argument that is not SQL is not an error
			out = append(out, ups...)
		}
		for _, w := range strings.Fields(a) {
			if _, v, ok := strings.Cut(w, "="); ok && isSQL(v) { // --file=work.sql
				w = v
			}
			if w = strings.Trim(w, `"'`); isSQL(w) {
				file(w)
			}
		}
	}
	return out, notes
}

// Warning is one index that indexes a column the workload updates.
type Warning struct {
	Index, Table, Column, Statement, Source, IndexSource string
	Text                                                 string
	// Line is where the index's statement starts in IndexSource.
	Line int
	// Suppressed is the suppression that silences it (nil: shown).
	Suppressed *Suppression
}

// role says where in the index the column is, when it is not a plain key.
func role(ix IndexDef, c string) string {
	switch {
	case containsFold(ix.Keys, c) && ix.Expression:
		return " (in a key expression)"
	case containsFold(ix.Keys, c):
		return ""
	case containsFold(ix.Include, c):
		return " (an INCLUDE column)"
	case containsFold(ix.Predicate, c):
		return " (in its WHERE predicate)"
	}
	return ""
}

// Warn pairs the migration's indexes with the workload's updates.
func Warn(dialect string, idx []IndexDef, ups []Update) []Warning {
	var out []Warning
	seen := map[string]bool{}
	for _, ix := range idx {
		for _, u := range ups {
			if !strings.EqualFold(ix.Table, u.Table) {
				continue
			}
			for _, c := range ix.Columns {
				k := strings.ToLower(ix.Name + "/" + ix.Table + "/" + c)
				if !containsFold(u.Columns, c) || seen[k] {
					continue
				}
				seen[k] = true
				w := Warning{Index: ix.Name, Table: ix.Table, Column: c, Statement: u.Example, Source: u.Source, IndexSource: ix.Source, Line: ix.Line}
				var effect string
				switch {
				case dialect == sqlparse.Postgres && ix.Method == "brin":
					effect = "on PostgreSQL 16+ a BRIN-only change stays HOT; on 13-15 those updates can no longer be HOT"
				case dialect == sqlparse.Postgres:
					effect = "on PostgreSQL those updates can no longer be HOT: each one adds an entry to every index of " + ix.Table
				case dialect == sqlparse.MySQL:
					effect = "InnoDB has no HOT: each of those updates now also changes " + ix.Name +
						" (a secondary-index entry delete-marked and a new one inserted, per row updated)"
				default:
					effect = "each of those updates now also moves an entry in " + ix.Name + " (delete-mark and insert)"
				}
				w.Text = fmt.Sprintf("index %s (%s) on %s includes column %s%s, which the workload updates (%s, in %s): %s",
					ix.Name, ix.Source, ix.Table, c, role(ix, c), u.Example, u.Source, effect)
				out = append(out, w)
			}
		}
	}
	return out
}

func containsFold(xs []string, s string) bool {
	for _, x := range xs {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
