package explain

import (
	"strings"

	"github.com/writeamp/writeamp/sqlparse"
)

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
