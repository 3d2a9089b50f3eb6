package sqlparse

import "strings"

// joinWords end a table reference in an UPDATE's table list.
var joinWords = map[string]bool{"join": true, "inner": true, "left": true, "right": true, "cross": true,
	"straight_join": true, "natural": true, "outer": true, "full": true, "on": true, "using": true, "set": true,
	"as": true, "where": true, "with": true, "force": true, "use": true, "ignore": true, "from": true,
	"output": true, "returning": true, "order": true, "limit": true, "option": true}

type tableRef struct{ name, schema, alias string }

// tableRefs reads table references (name [AS] alias, joined by commas or
// JOIN … ON …) until one of the stop words at depth 0.
func (c *cursor) tableRefs(stop ...string) []tableRef {
	var out []tableRef
	for !c.done() {
		for _, s := range stop {
			if c.peek(0).is(c.src, s) {
				return out
			}
		}
		t := c.peek(0)
		switch {
		case t.kind == punct && c.src[t.start] == '(':
			c.group() // a subquery or a join condition
		case c.word("on", "using"):
			// skip the condition up to the next join or stop word
			for !c.done() {
				p := c.peek(0)
				if p.kind == word && (joinWords[strings.ToLower(p.text(c.src))] || isStop(c, stop)) {
					break
				}
				if p.kind == punct && (c.src[p.start] == ',' || c.src[p.start] == '(') {
					if c.src[p.start] == '(' {
						c.group()
						continue
					}
					break
				}
				c.i++
			}
		case (t.kind == word && !joinWords[strings.ToLower(t.text(c.src))]) || t.kind == ident:
			name, schema, _ := c.name()
			ref := tableRef{name: name, schema: schema}
			c.word("as")
			if a := c.peek(0); a.kind == ident || a.kind == word && !joinWords[strings.ToLower(a.text(c.src))] {
				ref.alias = unquote(a.text(c.src))
				c.i++
			}
			out = append(out, ref)
		default:
			c.i++
		}
	}
	return out
}

func isStop(c *cursor, stop []string) bool {
	for _, s := range stop {
		if c.peek(0).is(c.src, s) {
			return true
		}
	}
	return false
}

// lexUpdates reads UPDATE [LOW_PRIORITY] [IGNORE] [TOP (n)] tables SET
// assignments [FROM tables] …, the form of MySQL (joined tables), SQL Server
// (UPDATE alias … FROM) and Oracle alike, wherever in the statement it is.
func lexUpdates(r rules, text string) []Update {
	c := newCursor(r, text)
	var out []Update
	for !c.done() {
		if !c.word("update") {
			c.i++
			continue
		}
		c.word("low_priority")
		c.word("ignore")
		if c.word("top") {
			c.group()
			c.word("percent")
		}
		targets := c.tableRefs("set")
		if !c.word("set") || len(targets) == 0 {
			continue
		}
		type assign struct{ col, qual string }
		var as []assign
		for !c.done() {
			lhs := c.i
			col, qual, ok := c.name()
			if !ok || !c.punct('=') {
				c.i = lhs
				break
			}
			as = append(as, assign{col, qual})
			c.skipExpr()
			if !c.punct(',') {
				break
			}
		}
		var from []tableRef
		if c.word("from") {
			from = c.tableRefs("where", "option", "output", "returning", "order", "limit")
		}
		for i, t := range targets { // SQL Server: UPDATE alias … FROM table alias
			for _, f := range from {
				if t.schema == "" && f.alias != "" && strings.EqualFold(t.name, f.alias) {
					targets[i] = f
				}
			}
		}
		resolve := func(q string) []tableRef {
			if q == "" {
				return targets // several: MySQL would need the column to be unambiguous; we cannot tell which
			}
			for _, t := range append(append([]tableRef{}, targets...), from...) {
				if strings.EqualFold(q, t.alias) || t.alias == "" && strings.EqualFold(q, t.name) {
					return []tableRef{t}
				}
			}
			return nil
		}
		byTable := map[string]*Update{}
		var order []string
		for _, a := range as {
			for _, t := range resolve(a.qual) {
				k := strings.ToLower(t.schema + "." + t.name)
				if byTable[k] == nil {
					byTable[k] = &Update{Table: t.name, Schema: t.schema, From: len(from) > 0 || len(targets) > 1}
					order = append(order, k)
				}
				byTable[k].Columns = dedupe(append(byTable[k].Columns, a.col))
			}
		}
		for _, k := range order {
			out = append(out, *byTable[k])
		}
	}
	return out
}

// skipExpr moves past one expression of a SET list: to the next top-level
// comma or clause keyword.
func (c *cursor) skipExpr() {
	for !c.done() {
		t := c.peek(0)
		switch {
		case t.kind == punct && c.src[t.start] == '(':
			c.group()
			continue
		case t.kind == punct && (c.src[t.start] == ',' || c.src[t.start] == ';'):
			return
		case t.kind == word:
			switch strings.ToLower(t.text(c.src)) {
			case "where", "from", "order", "limit", "returning", "output", "option":
				return
			}
		}
		c.i++
	}
}
