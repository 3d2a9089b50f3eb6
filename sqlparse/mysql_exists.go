package sqlparse

import "strings"

// MySQL/MariaDB IF [NOT] EXISTS (see Existence).

// mysqlKind is the Object kind of a CREATE/DROP keyword.
func mysqlKind(kw string) string {
	switch strings.ToLower(kw) {
	case "table", "view", "sequence":
		return ObjTable
	case "database", "schema":
		return ObjSchema
	case "procedure":
		return ObjProcedure
	case "function":
		return ObjFunction
	case "trigger":
		return ObjTrigger
	case "event":
		return ObjEvent
	case "index":
		return ObjIndex
	}
	return ""
}

// has reports whether a word w comes anywhere after the cursor.
func (c *cursor) has(w string) bool {
	for _, t := range c.toks[c.i:] {
		if t.is(c.src, w) {
			return true
		}
	}
	return false
}

const mysqlDrop = "DROP removes a definition (and its data) that the migration does not contain"

// mysqlDropIfExists is why a DROP cannot be undone, or "" when it is a
// no-op: DROP … IF EXISTS of objects that are all missing, or DROP
// TEMPORARY TABLE (the session's own).
func mysqlDropIfExists(c *cursor, e *Existence) string {
	c.i++ // DROP
	if c.word("temporary") {
		return ""
	}
	kw := c.peek(0).text(c.src)
	kind := mysqlKind(kw)
	if kind == "" {
		return mysqlDrop
	}
	c.i++
	if !c.word("if") {
		return mysqlDrop
	}
	if !c.word("exists") {
		return "DROP … IF: unexpected text"
	}
	var objs []Object
	for !c.done() {
		name, schema, ok := c.name()
		if !ok {
			return "DROP " + strings.ToUpper(kw) + " IF EXISTS: unexpected text; " + mysqlDrop
		}
		o := Object{Kind: kind, Schema: schema, Name: name}
		if kind == ObjIndex {
			if !c.word("on") {
				return "DROP INDEX IF EXISTS without ON table; " + mysqlDrop
			}
			o.Table, o.Schema, _ = c.name()
		}
		if kind == ObjSchema {
			o.Schema = ""
		}
		objs = append(objs, o)
		if !c.punct(',') {
			break
		}
	}
	return e.ifExists(objs...)
}

// mysqlDropSpecIfExists is why ALTER TABLE … DROP cannot be undone, or ""
// for DROP COLUMN/INDEX/KEY IF EXISTS of one that is missing.
func mysqlDropSpecIfExists(c *cursor, e *Existence, table, schema string) string {
	const why = "ALTER TABLE DROP: the state before it is not in the migration"
	kind := ObjColumn
	switch {
	case c.word("index", "key"):
		kind = ObjIndex
	case c.word("column"):
	case c.peek(0).is(c.src, "primary"), c.peek(0).is(c.src, "foreign"), c.peek(0).is(c.src, "constraint"),
		c.peek(0).is(c.src, "check"), c.peek(0).is(c.src, "partition"), c.peek(0).is(c.src, "system"), c.peek(0).is(c.src, "period"):
		return why
	}
	if !(c.word("if") && c.word("exists")) {
		return why
	}
	name, _, ok := c.name()
	if !ok || !c.done() {
		return why
	}
	return e.ifExists(Object{Kind: kind, Schema: schema, Table: table, Name: name})
}
