package sqlparse

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// A base schema or a migration often creates a table and fills it in the
// same file (CREATE TABLE jobs …; INSERT INTO jobs SELECT …). The INSERT has
// no inverse of its own, but it needs none: undoing the CREATE TABLE drops
// the table with every row in it. The helpers below name the table a
// statement creates and the one table a data change or ALTER TABLE touches,
// so Invert can let such statements through without an undo. Only an exact
// match of the (schema-qualified as written) name counts: "jobs" and
// "public.jobs" are different as far as the text can prove.

// createdTable is the table s creates when Invert undoes it with a DROP
// ("" for any other statement).
func createdTable(dialect string, s Statement) string {
	switch dialect {
	case Postgres:
		if s.pg == nil {
			return ""
		}
		switch n := s.pg.Node.(type) {
		case *pg.Node_CreateStmt:
			if n.CreateStmt.IfNotExists || n.CreateStmt.Relation.GetRelpersistence() == "t" {
				return ""
			}
			return rvKey(n.CreateStmt.Relation)
		case *pg.Node_CreateTableAsStmt:
			if n.CreateTableAsStmt.IfNotExists || n.CreateTableAsStmt.Objtype == pg.ObjectType_OBJECT_MATVIEW {
				return ""
			}
			return rvKey(n.CreateTableAsStmt.Into.GetRel())
		}
	case MySQL:
		c := newCursor(mysqlRules, s.Text)
		if !c.word("create") || c.word("or") || c.word("temporary") || !c.word("table") || c.word("if") {
			return ""
		}
		name, schema, ok := c.name()
		if ok {
			return schema + "." + name
		}
	}
	return ""
}

// changedTable is the one table a data change (INSERT, UPDATE, DELETE,
// COPY FROM, TRUNCATE, LOAD DATA, REPLACE) or an ALTER TABLE changes and
// nothing else, or "" when the statement may change more than one table or
// is something else: a data-modifying WITH, a multi-table UPDATE or DELETE.
func changedTable(dialect string, s Statement) string {
	switch dialect {
	case Postgres:
		return pgChangedTable(s)
	case MySQL:
		return mysqlChangedTable(s.Text)
	}
	return ""
}

func rvKey(r *pg.RangeVar) string {
	if r == nil {
		return ""
	}
	return r.GetSchemaname() + "." + r.GetRelname()
}

func pgChangedTable(s Statement) string {
	if s.lexOnly {
		return lexInsertTable(s.Text)
	}
	if s.pg == nil {
		return ""
	}
	switch n := s.pg.Node.(type) {
	case *pg.Node_InsertStmt:
		if n.InsertStmt.WithClause != nil {
			return ""
		}
		return rvKey(n.InsertStmt.Relation)
	case *pg.Node_UpdateStmt:
		if n.UpdateStmt.WithClause != nil {
			return ""
		}
		return rvKey(n.UpdateStmt.Relation)
	case *pg.Node_DeleteStmt:
		if n.DeleteStmt.WithClause != nil {
			return ""
		}
		return rvKey(n.DeleteStmt.Relation)
	case *pg.Node_CopyStmt:
		if !n.CopyStmt.IsFrom || n.CopyStmt.IsProgram || n.CopyStmt.Relation == nil {
			return ""
		}
		return rvKey(n.CopyStmt.Relation)
	case *pg.Node_TruncateStmt:
		if len(n.TruncateStmt.Relations) != 1 || n.TruncateStmt.Behavior == pg.DropBehavior_DROP_CASCADE {
			return ""
		}
		return rvKey(n.TruncateStmt.Relations[0].GetRangeVar())
	case *pg.Node_AlterTableStmt:
		if n.AlterTableStmt.Objtype != pg.ObjectType_OBJECT_TABLE || n.AlterTableStmt.MissingOk {
			return ""
		}
		return rvKey(n.AlterTableStmt.Relation)
	}
	return ""
}

func mysqlChangedTable(text string) string {
	c := newCursor(mysqlRules, text)
	key := func() string {
		name, schema, ok := c.name()
		if !ok {
			return ""
		}
		return schema + "." + name
	}
	switch {
	case c.word("insert", "replace"):
		c.word("low_priority", "delayed", "high_priority")
		c.word("ignore")
		c.word("into")
		return key()
	case c.word("update"):
		c.word("low_priority")
		c.word("ignore")
		k := key()
		c.word("as")
		if t := c.peek(0); t.kind == ident || t.kind == word && !t.is(c.src, "set") {
			c.i++ // an alias
		}
		if !c.word("set") {
			return "" // a join: more than one table
		}
		return k
	case c.word("delete"):
		c.word("low_priority")
		c.word("quick")
		c.word("ignore")
		if !c.word("from") {
			return "" // DELETE t1, t2 FROM …
		}
		k := key()
		if t := c.peek(0); !c.done() && !t.is(c.src, "where") && !t.is(c.src, "order") && !t.is(c.src, "limit") && !t.is(c.src, "returning") {
			return "" // DELETE FROM t1 USING … / joined
		}
		return k
	case c.word("truncate"):
		c.word("table")
		k := key()
		if !c.done() {
			return ""
		}
		return k
	case c.word("load"):
		for !c.done() && !c.word("into") {
			c.i++
		}
		if !c.word("table") {
			return ""
		}
		return key()
	case c.word("alter"):
		c.word("online", "ignore")
		if !c.word("table") || c.word("if") {
			return ""
		}
		k := key()
		for _, spec := range c.specs() {
			sc := &cursor{src: c.src, toks: spec}
			if sc.word("rename") {
				return "" // the name the DROP TABLE uses would change
			}
		}
		return k
	}
	return ""
}

// lexInsertTable is the table of INSERT INTO [schema.]name, with names
// folded as PostgreSQL folds them (unquoted to lower case), the key rvKey
// gives; "" for anything it cannot be sure of.
func lexInsertTable(text string) string {
	c := newCursor(pgRules, text)
	if !c.word("insert") || !c.word("into") {
		return ""
	}
	var parts []string
	for {
		t := c.peek(0)
		switch t.kind {
		case word:
			parts = append(parts, strings.ToLower(t.text(c.src)))
		case ident:
			parts = append(parts, unquote(t.text(c.src)))
		default:
			return ""
		}
		c.i++
		if !c.punct('.') {
			break
		}
	}
	switch len(parts) {
	case 1:
		return "." + parts[0]
	case 2:
		return parts[0] + "." + parts[1]
	}
	return ""
}
