package sqlparse

// Destroys names the tables a statement would drop, empty or rewrite (DROP
// TABLE, TRUNCATE, RENAME TABLE) and, separately, the one table whose rows
// a data change (INSERT, UPDATE, DELETE, REPLACE, LOAD DATA) writes, as
// "schema.name" (schema "" when the text names none). check holds an undo
// statement to it on a server without transactional DDL: one that drops a
// table the migration did not create is refused before it runs. known is
// false when the statement may change tables the text does not name (a
// multi-table UPDATE/DELETE, a data-modifying WITH): the caller then
// refuses unless something else proves it.
func Destroys(dialect string, s Statement) (dropped []string, written string, known bool) {
	if dialect != MySQL {
		return nil, "", false
	}
	c := newCursor(mysqlRules, s.Text)
	key := func() (string, bool) {
		name, schema, ok := c.name()
		return schema + "." + name, ok
	}
	switch {
	case c.word("drop"):
		c.word("temporary")
		if !c.word("table", "tables") {
			return nil, "", true // DROP INDEX/VIEW/… : the catalog comparison holds them
		}
		if c.word("if") {
			c.word("exists")
		}
		for {
			k, ok := key()
			if !ok {
				return dropped, "", false
			}
			dropped = append(dropped, k)
			if !c.punct(',') {
				return dropped, "", true
			}
		}
	case c.word("truncate"):
		c.word("table")
		k, ok := key()
		return []string{k}, "", ok
	case c.word("rename"):
		if !c.word("table", "tables") {
			return nil, "", false
		}
		for {
			k, ok := key()
			if !ok || !c.word("to") {
				return dropped, "", false
			}
			dropped = append(dropped, k)
			if _, ok := key(); !ok {
				return dropped, "", false
			}
			if !c.punct(',') {
				return dropped, "", true
			}
		}
	}
	c = newCursor(mysqlRules, s.Text)
	if c.word("insert", "replace", "update", "delete", "load") {
		if t := mysqlChangedTable(s.Text); t != "" {
			return nil, t, true
		}
		return nil, "", false
	}
	return nil, "", true
}
