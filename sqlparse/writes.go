package sqlparse

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Write is a DML statement: what it writes to and, for an UPDATE, the
// columns it sets.
type Write struct {
	Kind          string // "insert", "update", "delete"
	Table, Schema string
	Columns       []string // the columns an UPDATE sets (an INSERT writes every column)
	// OnConflictUpdate: INSERT … ON CONFLICT DO UPDATE SET these columns,
	// which update the conflicting row.
	OnConflictUpdate []string
	Line             int
	Statement        string
}

// Writes lists the INSERT, UPDATE and DELETE statements (including those in
// a WITH clause on PostgreSQL, read from its parse tree; the lexer's rules
// elsewhere, which see UPDATE's SET list and the target of INSERT/DELETE).
func Writes(dialect string, stmts []Statement) []Write {
	var out []Write
	for _, s := range stmts {
		var got []Write
		if dialect == Postgres {
			got = pgWrites(s)
		} else if r, err := rulesOf(dialect); err == nil {
			got = lexWrites(r, s.Text)
		}
		for i := range got {
			got[i].Line, got[i].Statement = s.Line, s.Text
		}
		out = append(out, got...)
	}
	return out
}

func pgWrites(s Statement) []Write {
	if s.pg == nil {
		return nil
	}
	var out []Write
	walk(s.pg, func(r protoreflect.Message) bool {
		switch n := r.Interface().(type) {
		case *pg.InsertStmt:
			w := Write{Kind: "insert", Table: rangeVarName(n.Relation), Schema: n.Relation.GetSchemaname()}
			if oc := n.GetOnConflictClause(); oc != nil && oc.Action == pg.OnConflictAction_ONCONFLICT_UPDATE {
				for _, t := range oc.TargetList {
					if rt := t.GetResTarget(); rt != nil && rt.Name != "" {
						w.OnConflictUpdate = append(w.OnConflictUpdate, rt.Name)
					}
				}
				w.OnConflictUpdate = dedupe(w.OnConflictUpdate)
			}
			out = append(out, w)
		case *pg.UpdateStmt:
			w := Write{Kind: "update", Table: rangeVarName(n.Relation), Schema: n.Relation.GetSchemaname()}
			for _, t := range n.TargetList {
				if rt := t.GetResTarget(); rt != nil && rt.Name != "" {
					w.Columns = append(w.Columns, rt.Name)
				}
			}
			w.Columns = dedupe(w.Columns)
			out = append(out, w)
		case *pg.DeleteStmt:
			out = append(out, Write{Kind: "delete", Table: rangeVarName(n.Relation), Schema: n.Relation.GetSchemaname()})
		}
		return true
	})
	return out
}

// lexWrites reads UPDATE through lexUpdates, and the target of a leading
// INSERT [INTO] / REPLACE [INTO] / DELETE [FROM].
func lexWrites(r rules, text string) []Write {
	for _, u := range lexUpdates(r, text) {
		return []Write{{Kind: "update", Table: u.Table, Schema: u.Schema, Columns: u.Columns}}
	}
	c := newCursor(r, text)
	kind := ""
	switch {
	case c.word("insert"), c.word("replace"):
		kind = "insert"
		c.word("low_priority")
		c.word("ignore")
		c.word("into")
	case c.word("delete"):
		kind = "delete"
		c.word("low_priority")
		c.word("quick")
		c.word("ignore")
		c.word("from")
	default:
		return nil
	}
	name, qual, ok := c.name()
	if !ok {
		return nil
	}
	return []Write{{Kind: kind, Table: strings.ToLower(name), Schema: qual}}
}
