package sqlparse

import (
	"strings"
)

// The dialects without a parser here (MySQL/MariaDB, SQL Server, Oracle) are
// read from their tokens: the grammar of CREATE INDEX, ADD INDEX and UPDATE
// is small and the tokens already know quotes, comments and nesting.

// cursor walks a statement's significant tokens.
type cursor struct {
	src  string
	toks []token
	i    int
}

func newCursor(r rules, text string) *cursor {
	toks, _ := lex(r, text)
	var sig []token
	for _, t := range toks {
		if t.significant() && t.kind != exec {
			sig = append(sig, t)
		}
	}
	return &cursor{src: text, toks: sig}
}

func (c *cursor) done() bool { return c.i >= len(c.toks) }

func (c *cursor) peek(k int) token {
	if c.i+k < len(c.toks) {
		return c.toks[c.i+k]
	}
	return token{kind: space, start: int32(len(c.src)), end: int32(len(c.src))}
}

// word reports whether the next token is one of ws (and consumes it).
func (c *cursor) word(ws ...string) bool {
	for _, w := range ws {
		if c.peek(0).is(c.src, w) {
			c.i++
			return true
		}
	}
	return false
}

func (c *cursor) punct(p byte) bool {
	if t := c.peek(0); t.kind == punct && c.src[t.start] == p {
		c.i++
		return true
	}
	return false
}

// name reads a possibly qualified name: a.b.c; it returns the last part
// and the one before it.
func (c *cursor) name() (last, qualifier string, ok bool) {
	for {
		t := c.peek(0)
		if t.kind != word && t.kind != ident {
			return last, qualifier, ok
		}
		c.i++
		qualifier, last, ok = last, unquote(t.text(c.src)), true
		if !c.punct('.') {
			return last, qualifier, ok
		}
	}
}

// group returns the tokens inside the parentheses that start at the
// cursor, split at top-level commas, and moves past the closing one.
func (c *cursor) group() [][]token {
	if !c.punct('(') {
		return nil
	}
	var items [][]token
	var cur []token
	depth := 0
	for ; !c.done(); c.i++ {
		t := c.toks[c.i]
		if t.kind == punct {
			switch c.src[t.start] {
			case '(':
				depth++
			case ')':
				if depth == 0 {
					c.i++
					return append(items, cur)
				}
				depth--
			case ',':
				if depth == 0 {
					items, cur = append(items, cur), nil
					continue
				}
			}
		}
		cur = append(cur, t)
	}
	return append(items, cur)
}

func unquote(s string) string {
	if len(s) >= 2 {
		switch s[0] {
		case '"', '`':
			q := s[:1]
			return strings.ReplaceAll(s[1:len(s)-1], q+q, q)
		case '[':
			return strings.ReplaceAll(s[1:len(s)-1], "]]", "]")
		}
	}
	return s
}

// notColumns are the words of an index's key list or predicate that are not
// column names.
var notColumns = map[string]bool{"and": true, "or": true, "not": true, "is": true, "null": true, "true": true,
	"false": true, "in": true, "like": true, "between": true, "asc": true, "desc": true, "collate": true,
	"case": true, "when": true, "then": true, "else": true, "end": true, "cast": true, "as": true, "interval": true,
	"current_date": true, "current_timestamp": true, "sysdate": true, "systimestamp": true, "escape": true,
	"char": true, "varchar": true, "signed": true, "unsigned": true, "date": true, "datetime": true, "json": true}

// columnsIn lists the names in an expression that are columns: not
// functions (a name before "("), keywords or literals.
func columnsIn(src string, toks []token) []string {
	var out []string
	for i, t := range toks {
		if t.kind != word && t.kind != ident {
			continue
		}
		if i+1 < len(toks) && toks[i+1].kind == punct && (src[toks[i+1].start] == '(' || src[toks[i+1].start] == '.') {
			continue // a function, or a qualifier
		}
		if t.kind == word && (notColumns[strings.ToLower(t.text(src))] || t.text(src)[0] == '@') {
			continue
		}
		out = append(out, unquote(t.text(src)))
	}
	return out
}

// keyColumns reads an index's key list: a column (with MySQL's prefix
// length) or an expression in parentheses.
func keyColumns(src string, items [][]token) (cols []string, expr bool) {
	for _, it := range items {
		if len(it) == 0 {
			continue
		}
		if it[0].kind == word || it[0].kind == ident {
			prefix := len(it) > 3 && it[2].kind == number && it[3].kind == punct && src[it[3].start] == ')' // MySQL col(8)
			if len(it) > 1 && it[1].kind == punct && src[it[1].start] == '(' && !prefix {
				expr = true // a function of columns (Oracle, SQL Server computed)
				cols = append(cols, columnsIn(src, it)...)
				continue
			}
			cols = append(cols, unquote(it[0].text(src)))
			continue
		}
		expr = true
		cols = append(cols, columnsIn(src, it)...)
	}
	return cols, expr
}

func lexIndexes(r rules, text string) []Index {
	c := newCursor(r, text)
	switch {
	case c.word("create"):
		return createIndex(c)
	case c.word("alter"):
		return addIndexes(c)
	}
	return nil
}

func createIndex(c *cursor) []Index {
	var ix Index
	c.word("or") // MariaDB CREATE OR REPLACE INDEX
	c.word("replace")
	for !c.done() && !c.peek(0).is(c.src, "index") {
		switch {
		case c.word("unique"):
			ix.Unique = true
		case c.word("online", "offline", "fulltext", "spatial", "clustered", "nonclustered", "bitmap", "multivalue"):
		default:
			return nil // CREATE TABLE, VIEW, …
		}
	}
	if !c.word("index") {
		return nil
	}
	c.word("if")
	c.word("not")
	c.word("exists")
	ix.Name, _, _ = c.name()
	if c.word("using", "type") {
		ix.Method = strings.ToLower(c.peek(0).text(c.src))
		c.i++
	}
	if !c.word("on") {
		return nil
	}
	ix.Table, ix.Schema, _ = c.name()
	if c.word("using") {
		ix.Method = strings.ToLower(c.peek(0).text(c.src))
		c.i++
	}
	ix.Keys, ix.Expression = keyColumns(c.src, c.group())
	ix.Columns = append(ix.Columns, ix.Keys...)
	for !c.done() {
		switch {
		case c.word("include"):
			for _, it := range c.group() {
				ix.Include = append(ix.Include, columnsIn(c.src, it)...)
			}
			ix.Columns = append(ix.Columns, ix.Include...)
		case c.word("where"):
			ix.Partial = true
			ix.Predicate = dedupe(columnsIn(c.src, c.toks[c.i:]))
			ix.Columns = append(ix.Columns, ix.Predicate...)
			c.i = len(c.toks)
		default:
			c.i++
		}
	}
	ix.Columns, ix.Keys = dedupe(ix.Columns), dedupe(ix.Keys)
	return []Index{ix}
}

// addIndexes reads ALTER TABLE t ADD … specifications that create an index.
func addIndexes(c *cursor) []Index {
	c.word("online", "ignore")
	if !c.word("table") {
		return nil
	}
	c.word("if")
	c.word("exists")
	table, schema, _ := c.name()
	var out []Index
	for _, spec := range c.specs() {
		sc := &cursor{src: c.src, toks: spec}
		if !sc.word("add") {
			continue
		}
		ix := Index{Table: table, Schema: schema, Constraint: true}
		if sc.word("constraint") {
			if !sc.peek(0).is(c.src, "primary") && !sc.peek(0).is(c.src, "unique") {
				ix.Name, _, _ = sc.name()
			}
		}
		switch {
		case sc.word("primary"):
			sc.word("key")
			ix.Unique, ix.Name = true, "PRIMARY"
		case sc.word("unique"):
			ix.Unique = true
			sc.word("index", "key")
		case sc.word("index", "key"):
			ix.Constraint = false
		case sc.word("fulltext", "spatial"):
			sc.word("index", "key")
			ix.Constraint = false
		default:
			continue // a column, a foreign key, a check
		}
		sc.word("clustered", "nonclustered")
		if t := sc.peek(0); t.kind == word || t.kind == ident {
			if n, _, _ := sc.name(); !strings.EqualFold(n, "using") {
				ix.Name = n
			}
		}
		if sc.word("using") {
			sc.i++
		}
		ix.Keys, ix.Expression = keyColumns(c.src, sc.group())
		ix.Columns = dedupe(ix.Keys)
		out = append(out, ix)
	}
	return out
}

// specs splits the rest of an ALTER TABLE at top-level commas.
func (c *cursor) specs() [][]token {
	var out [][]token
	var cur []token
	depth := 0
	for ; !c.done(); c.i++ {
		t := c.toks[c.i]
		if t.kind == punct {
			switch c.src[t.start] {
			case '(':
				depth++
			case ')':
				depth--
			case ',':
				if depth == 0 {
					out, cur = append(out, cur), nil
					continue
				}
			}
		}
		cur = append(cur, t)
	}
	return append(out, cur)
}
