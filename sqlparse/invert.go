package sqlparse

import (
	"fmt"
	"regexp"
	"strings"
)

// Inverse is what undoes a migration.
type Inverse struct {
	// Statements undo the migration, in the order to run them (the last
	// statement's undo first). Valid only when Refused is empty.
	Statements []string
	// Refused lists the statements with no provable inverse, and why.
	Refused []Refusal
}

// Refusal is a statement Invert cannot undo.
type Refusal struct {
	Line      int
	Statement string
	Reason    string
}

func (r Refusal) String() string {
	return fmt.Sprintf("line %d (%s): %s", r.Line, shorten(r.Statement), r.Reason)
}

func shorten(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

// Invert computes the statements that undo stmts, for what it can prove:
// CREATE TABLE/INDEX/SCHEMA/VIEW/SEQUENCE (PostgreSQL also EXTENSION and
// enum types) become DROPs, ADD COLUMN and named ADD CONSTRAINT/INDEX
// become DROPs, RENAMEs are renamed back. It refuses, with the reason,
// what it cannot prove: data changes, DROPs, ALTER … TYPE, IF NOT EXISTS
// (the object may have been there before), OR REPLACE, unnamed constraints
// and indexes (the server picks the name). Session-only statements (SET,
// BEGIN/COMMIT, temporary tables) need no undo, and neither does a data
// change or ALTER TABLE on a table the same statements created earlier
// (CREATE TABLE jobs …; INSERT INTO jobs …): dropping the table undoes it.
// Functions such a statement calls are taken to change nothing else.
func Invert(dialect string, stmts []Statement) (*Inverse, error) {
	return InvertAfter(dialect, nil, stmts)
}

// InvertAfter is Invert for statements that follow earlier ones, which are
// undone by their own inverse: a table earlier creates is dropped by it, so
// filling that table needs no undo either (a --schema file creates a table,
// a migration fills it).
func InvertAfter(dialect string, earlier, stmts []Statement) (*Inverse, error) {
	return InvertWith(dialect, earlier, stmts, nil)
}

// InvertWith is InvertAfter with IF [NOT] EXISTS resolved by ex, the
// state before stmts[0] (see Existence); nil refuses them.
func InvertWith(dialect string, earlier, stmts []Statement, ex *Existence) (*Inverse, error) {
	if ex == nil {
		ex = NewExistence(dialect, nil)
	}
	ex = ex.clone()
	inv := &Inverse{}
	var undo [][]string
	created := map[string]bool{}
	for _, s := range earlier {
		if t := createdTable(dialect, s); t != "" {
			created[t] = true
		}
	}
	for _, s := range stmts {
		u, reason, err := ex.invertOne(s)
		if err != nil {
			return nil, err
		}
		if reason != "" && created[changedTable(dialect, s)] {
			continue // undone by the DROP TABLE of the table it changes
		}
		if reason != "" {
			inv.Refused = append(inv.Refused, Refusal{Line: s.Line, Statement: s.Text, Reason: reason})
			continue
		}
		if t := createdTable(dialect, s); t != "" {
			created[t] = true
		}
		undo = append(undo, u)
	}
	for i := len(undo) - 1; i >= 0; i-- {
		inv.Statements = append(inv.Statements, undo[i]...)
	}
	return inv, nil
}

func bq(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }

func bqName(name, schema string) string {
	if schema != "" {
		return bq(schema) + "." + bq(name)
	}
	return bq(name)
}

var execRe = regexp.MustCompile(`(?s)^/\*M?!\d*(.*)\*/$`)

const mysqlMaybe = "OR REPLACE: the object may have been there before, so dropping it could remove what the migration did not create"

// mysqlInvert undoes one MySQL/MariaDB statement read from its tokens.
func mysqlInvert(text string, e *Existence) ([]string, string) {
	if m := execRe.FindStringSubmatch(text); m != nil {
		text = m[1] // /*!40101 SET … */: MySQL runs what is inside
	}
	c := newCursor(mysqlRules, text)
	first := strings.ToLower(c.peek(0).text(c.src))
	switch first {
	case "create":
		return mysqlInvertCreate(c, e)
	case "alter":
		return mysqlInvertAlter(c, e)
	case "rename":
		e.rename("an earlier statement renames tables")
		c.i++
		if !c.word("table") {
			return nil, "RENAME USER: no inverse known"
		}
		var pairs []string
		for !c.done() {
			from, fs, _ := c.name()
			if !c.word("to") {
				return nil, "RENAME TABLE: unexpected text"
			}
			to, ts, _ := c.name()
			pairs = append([]string{bqName(to, ts) + " TO " + bqName(from, fs)}, pairs...)
			if !c.punct(',') {
				break
			}
		}
		return []string{"RENAME TABLE " + strings.Join(pairs, ", ")}, ""
	case "set":
		if c.peek(1).is(c.src, "global") || c.peek(1).is(c.src, "persist") {
			return nil, "SET GLOBAL changes the server for everyone; its old value is not in the migration"
		}
		return nil, ""
	case "start", "begin", "commit", "rollback", "select", "do":
		return nil, ""
	case "insert", "update", "delete", "replace", "load", "truncate", "call":
		return nil, "it changes data; the rows as they were are not in the migration"
	case "drop":
		return nil, mysqlDropIfExists(c, e)
	case "use":
		return nil, "USE changes which database the following names mean"
	}
	return nil, strings.ToUpper(first) + ": no inverse known"
}

func mysqlInvertCreate(c *cursor, e *Existence) ([]string, string) {
	c.i++
	replace := c.word("or") && c.word("replace")
	temporary := false
	// guard reads IF NOT EXISTS and the name after it: noop when the
	// object is there (nothing to undo), why when that cannot be told.
	guard := func(kind string) (name, schema string, noop bool, why string) {
		ine := c.word("if")
		if ine && !(c.word("not") && c.word("exists")) {
			return "", "", false, "CREATE … IF: unexpected text"
		}
		name, schema, _ = c.name()
		o := Object{Kind: kind, Schema: schema, Name: name}
		if !ine {
			e.creates(o)
			return name, schema, false, ""
		}
		noop, why = e.ifNotExists(o)
		return name, schema, noop, why
	}
	for n := 0; n < 12 && !c.done(); n++ {
		switch {
		case c.word("temporary"):
			temporary = true
		case c.word("table"):
			if temporary {
				return nil, ""
			}
			if replace {
				return nil, mysqlMaybe
			}
			name, schema, noop, why := guard(ObjTable)
			if noop && why == "" && c.has("select") {
				why = "CREATE TABLE IF NOT EXISTS … SELECT on a table that exists may copy rows into it"
			}
			if noop || why != "" {
				return nil, why
			}
			return []string{"DROP TABLE " + bqName(name, schema)}, ""
		case c.word("database", "schema"):
			if replace {
				return nil, mysqlMaybe
			}
			name, _, noop, why := guard(ObjSchema)
			if noop || why != "" {
				return nil, why
			}
			return []string{"DROP DATABASE " + bq(name)}, ""
		case c.word("index"):
			if replace {
				return nil, mysqlMaybe
			}
			ine := c.word("if") && c.word("not") && c.word("exists")
			name, _, _ := c.name()
			for !c.done() && !c.word("on") {
				c.i++
			}
			table, schema, _ := c.name()
			o := Object{Kind: ObjIndex, Schema: schema, Table: table, Name: name}
			if !ine {
				e.creates(o)
			} else if noop, why := e.ifNotExists(o); noop || why != "" {
				return nil, why
			}
			return []string{"DROP INDEX " + bq(name) + " ON " + bqName(table, schema)}, ""
		case c.word("view"):
			if replace {
				return nil, mysqlMaybe
			}
			name, schema, noop, why := guard(ObjTable)
			if noop || why != "" {
				return nil, why
			}
			return []string{"DROP VIEW " + bqName(name, schema)}, ""
		case c.word("procedure", "function", "trigger", "event", "sequence"):
			kind := strings.ToUpper(c.toks[c.i-1].text(c.src))
			if replace {
				return nil, mysqlMaybe
			}
			name, schema, noop, why := guard(mysqlKind(kind))
			if noop || why != "" {
				return nil, why
			}
			return []string{"DROP " + kind + " " + bqName(name, schema)}, ""
		case c.word("user", "role", "server", "tablespace"):
			return nil, "CREATE " + strings.ToUpper(c.toks[c.i-1].text(c.src)) + ": no inverse implemented"
		default:
			c.i++ // UNIQUE, FULLTEXT, ALGORITHM = …, DEFINER = …, SQL SECURITY …
		}
	}
	return nil, "CREATE: no inverse known"
}

// mysqlInvertAlter undoes ALTER TABLE specifications, in reverse order, all
// or none.
func mysqlInvertAlter(c *cursor, e *Existence) ([]string, string) {
	c.i++
	c.word("online", "ignore")
	if !c.word("table") {
		return nil, "ALTER " + strings.ToUpper(c.peek(0).text(c.src)) + ": no inverse known"
	}
	if c.word("if") {
		return nil, "ALTER TABLE IF EXISTS: whether it changed anything is not known beforehand"
	}
	table, schema, _ := c.name()
	final := bqName(table, schema)
	var undo []string
	for _, spec := range c.specs() {
		sc := &cursor{src: c.src, toks: spec}
		u, newName, reason := mysqlInvertSpec(sc, e, table, schema)
		if reason != "" {
			return nil, reason
		}
		if newName != "" {
			final = newName
			u = "RENAME TO " + bqName(table, schema)
		}
		if u != "" {
			undo = append([]string{u}, undo...)
		}
	}
	if len(undo) == 0 {
		return nil, ""
	}
	return []string{"ALTER TABLE " + final + " " + strings.Join(undo, ", ")}, ""
}

// mysqlInvertSpec undoes one ALTER TABLE specification; newName is set for
// RENAME TO.
func mysqlInvertSpec(c *cursor, e *Existence, table, schema string) (undo, newName, reason string) {
	// guard reads ADD … IF NOT EXISTS name: noop when it is there.
	guard := func(kind, name string, ine bool) (noop bool, why string) {
		o := Object{Kind: kind, Schema: schema, Table: table, Name: name}
		if !ine {
			e.creates(o)
			return false, ""
		}
		return e.ifNotExists(o)
	}
	switch {
	case c.word("add"):
	case c.word("drop"):
		return "", "", mysqlDropSpecIfExists(c, e, table, schema)
	case c.word("rename"):
		e.rename("an earlier statement renames a table, a column or an index")
		switch {
		case c.word("column"):
			from, _, _ := c.name()
			c.word("to")
			to, _, _ := c.name()
			return "RENAME COLUMN " + bq(to) + " TO " + bq(from), "", ""
		case c.word("index", "key"):
			from, _, _ := c.name()
			c.word("to")
			to, _, _ := c.name()
			return "RENAME INDEX " + bq(to) + " TO " + bq(from), "", ""
		}
		c.word("to", "as")
		to, ts, _ := c.name()
		return "", bqName(to, ts), ""
	case c.word("algorithm", "lock"):
		return "", "", "" // how, not what
	default:
		return "", "", "ALTER TABLE " + strings.ToUpper(c.peek(0).text(c.src)) + ": the state before it is not in the migration"
	}
	var symbol string
	if c.word("constraint") {
		if t := c.peek(0); !t.is(c.src, "primary") && !t.is(c.src, "unique") && !t.is(c.src, "check") && !t.is(c.src, "foreign") {
			symbol, _, _ = c.name()
		}
	}
	switch {
	case c.word("primary"):
		return "DROP PRIMARY KEY", "", ""
	case c.word("unique", "fulltext", "spatial", "index", "key"):
		c.word("index", "key")
		ine := c.word("if") && c.word("not") && c.word("exists")
		name := symbol
		if t := c.peek(0); t.kind == ident || t.kind == word && !t.is(c.src, "using") {
			name, _, _ = c.name()
		}
		if name == "" {
			return "", "", "an index without a name: the server picks one, which the migration's text does not say"
		}
		if noop, why := guard(ObjIndex, name, ine); noop || why != "" {
			return "", "", why
		}
		return "DROP INDEX " + bq(name), "", ""
	case c.word("check"):
		if symbol == "" {
			return "", "", "a CHECK constraint without a name: the server picks one"
		}
		return "DROP CONSTRAINT " + bq(symbol), "", ""
	case c.word("foreign"):
		return "", "", "ADD FOREIGN KEY may also create an index, which DROP FOREIGN KEY leaves behind"
	case c.word("period", "system"):
		return "", "", "system versioning: no inverse known"
	}
	c.word("column")
	ine := c.word("if") && c.word("not") && c.word("exists")
	if t := c.peek(0); t.kind == punct && c.src[t.start] == '(' {
		if ine {
			return "", "", "ADD COLUMN IF NOT EXISTS (…): a list under one IF NOT EXISTS is not resolved here"
		}
		var drops []string
		for _, it := range c.group() {
			if len(it) > 0 {
				col := unquote(it[0].text(c.src))
				e.creates(Object{Kind: ObjColumn, Schema: schema, Table: table, Name: col})
				drops = append([]string{"DROP COLUMN " + bq(col)}, drops...)
			}
		}
		return strings.Join(drops, ", "), "", ""
	}
	col, _, ok := c.name()
	if !ok {
		return "", "", "ADD: unexpected text"
	}
	if noop, why := guard(ObjColumn, col, ine); noop || why != "" {
		return "", "", why
	}
	return "DROP COLUMN " + bq(col), "", ""
}
