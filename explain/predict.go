package explain

import (
	"fmt"
	"strings"

	"github.com/writeamp/writeamp/sqlparse"
)

// Hit is an index a write touches, and why.
type Hit struct {
	Index string `json:"index"`
	// Roles are how the set columns are in the index: "key v",
	// "include w", "expression of v", "predicate of v".
	Roles []string `json:"roles,omitempty"`
	// Entries is the index entries one row adds to this index.
	Entries float64 `json:"entries_per_row"`
	// Maybe: a partial index, which gets the entry only when the (new) row
	// matches its predicate, so Entries is an upper bound.
	Maybe bool   `json:"maybe,omitempty"`
	Note  string `json:"note,omitempty"`
}

// Prediction is what one write statement should cost each row it writes.
type Prediction struct {
	Line      int      `json:"line"`
	Statement string   `json:"statement"`
	Kind      string   `json:"kind"`
	Table     string   `json:"table"`
	Columns   []string `json:"columns,omitempty"` // the columns an UPDATE sets
	// HOT is, for a PostgreSQL UPDATE, "possible" (no index reads a set
	// column) or "no"; "" elsewhere.
	HOT string `json:"hot,omitempty"`
	// Rewrites are, on InnoDB, the secondary indexes an UPDATE rewrites
	// (delete-mark and insert), every one when it changes the primary key.
	Rewrites []string `json:"rewrites,omitempty"`
	Indexes  []Hit    `json:"indexes"`
	// EntriesPerRow is the sum of the indexes' entries per row (an upper
	// bound where a partial index is Maybe).
	EntriesPerRow float64  `json:"index_entries_per_row"`
	Reasons       []string `json:"reasons,omitempty"`
}

// summarizing: an index type that keeps one summary per block range, not an
// entry per row; from PostgreSQL 16 an update of its columns stays HOT.
func summarizing(ix Index, version int) bool { return ix.Method == "brin" && version >= 160000 }

func roles(ix Index, cols []string) []string {
	var out []string
	for _, c := range cols {
		switch {
		case has(ix.Keys, c) && ix.Expr:
			out = append(out, "key or expression of "+c)
		case has(ix.Keys, c):
			out = append(out, "key "+c)
		case has(ix.Include, c):
			out = append(out, "include "+c)
		case has(ix.Predicate, c):
			out = append(out, "predicate of "+c)
		}
	}
	return out
}

func has(xs []string, s string) bool {
	for _, x := range xs {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// Predict applies the dialect's rules to one write on its table.
func Predict(dialect string, version int, w sqlparse.Write, t Table) Prediction {
	p := Prediction{Line: w.Line, Statement: oneLine(w.Statement), Kind: w.Kind, Table: qualified(t), Columns: w.Columns}
	if !t.Found {
		p.Reasons = append(p.Reasons, "table "+qualified(t)+" is not in the catalog (nor created earlier in the file): no index is known")
		return p
	}
	switch dialect {
	case "postgres":
		predictPostgres(&p, version, w, t)
	default:
		predictInnoDB(&p, w, t)
	}
	for _, h := range p.Indexes {
		p.EntriesPerRow += h.Entries
	}
	return p
}

func predictPostgres(p *Prediction, version int, w sqlparse.Write, t Table) {
	every := func(why string) {
		for _, ix := range t.Indexes {
			h := Hit{Index: ix.Name, Entries: 1, Roles: roles(ix, w.Columns)}
			switch {
			case summarizing(ix, version):
				h.Entries, h.Note = 0, "summarizing (BRIN): its block range's summary is updated, no entry per row"
			case ix.Method != "btree" && ix.Method != "":
				h.Note = ix.Method + ": one entry per key the row's value yields, counted here as one"
			}
			if ix.Partial {
				h.Maybe = true
				h.Note = joinNote(h.Note, "partial: only rows matching its predicate get an entry")
			}
			p.Indexes = append(p.Indexes, h)
		}
		p.Reasons = append(p.Reasons, why)
	}
	switch w.Kind {
	case "insert":
		every("an inserted row gets an entry in every index of its table")
		if len(w.OnConflictUpdate) > 0 {
			p.Reasons = append(p.Reasons, "ON CONFLICT DO UPDATE: a conflicting row is updated instead (SET "+strings.Join(w.OnConflictUpdate, ", ")+"), with the HOT rules of an UPDATE")
		}
	case "delete":
		p.Reasons = append(p.Reasons, "a DELETE only marks the heap row dead: no index entry is written now; VACUUM removes the row's entries later")
	case "update":
		var blockers []string
		for _, ix := range t.Indexes {
			if summarizing(ix, version) {
				continue
			}
			if r := roles(ix, w.Columns); len(r) > 0 {
				blockers = append(blockers, fmt.Sprintf("%s (%s)", ix.Name, strings.Join(r, ", ")))
			}
		}
		if len(blockers) == 0 {
			p.HOT = "possible"
			p.Reasons = append(p.Reasons, "HOT possible: no index reads a column it sets, so each row's new version is a heap-only tuple with no index entry while its page has room (a full page makes it non-HOT: newpage_updates, lower fillfactor helps)")
			return
		}
		p.HOT = "no"
		every("not HOT: it sets a column that " + strings.Join(blockers, "; ") + " reads, so each row's new version gets an entry in every index of the table (unless the new value equals the old, which PostgreSQL compares)")
	}
}

func predictInnoDB(p *Prediction, w sqlparse.Write, t Table) {
	var pk *Index
	for i := range t.Indexes {
		if t.Indexes[i].Primary {
			pk = &t.Indexes[i]
		}
	}
	switch w.Kind {
	case "insert", "delete":
		what := "an inserted row is written to the clustered index and gets an entry in every secondary index"
		if w.Kind == "delete" {
			what = "a deleted row is delete-marked in the clustered index and in every secondary index (purge removes them later)"
		}
		for _, ix := range t.Indexes {
			p.Indexes = append(p.Indexes, Hit{Index: ix.Name, Entries: 1})
		}
		p.Reasons = append(p.Reasons, what)
	case "update":
		pkChange := pk != nil && len(roles(*pk, w.Columns)) > 0
		for _, ix := range t.Indexes {
			r := roles(ix, w.Columns)
			switch {
			case ix.Primary:
				h := Hit{Index: ix.Name, Roles: r, Note: "clustered: the row is updated in place"}
				if pkChange {
					h.Entries, h.Note = 1, "clustered key changes: the row is deleted and inserted at its new key"
				}
				p.Indexes = append(p.Indexes, h)
			case pkChange || len(r) > 0:
				h := Hit{Index: ix.Name, Roles: r, Entries: 1, Note: "its entry is delete-marked and a new one inserted"}
				if pkChange && len(r) == 0 {
					h.Note = "holds the primary key as its row pointer: rewritten"
				}
				p.Indexes = append(p.Indexes, h)
				p.Rewrites = append(p.Rewrites, ix.Name)
			}
		}
		if len(p.Rewrites) == 0 {
			p.Reasons = append(p.Reasons, "no secondary index holds a column it sets: only the clustered row changes (in place), no secondary entry is rewritten")
		} else {
			p.Reasons = append(p.Reasons, "rewrites the secondary entries of "+strings.Join(p.Rewrites, ", "))
		}
	}
}

func qualified(t Table) string {
	if t.Schema == "" {
		return t.Name
	}
	return t.Schema + "." + t.Name
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
