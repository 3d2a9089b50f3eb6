package collectors

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// Scope limits which tables and indexes a snapshot reads. Empty = all user objects.
type Scope struct {
	Schemas []string `json:"schemas,omitempty"`
	Tables  []string `json:"tables,omitempty"`
	// Exact: the names are the catalog's own (Resolve), compared exactly;
	// otherwise (a workload's own scope) case-insensitively.
	Exact bool `json:"exact,omitempty"`
}

// InScope reports whether schema.table passes the scope filter. writeamp's
// own objects never do, whatever the scope names.
func (sc Scope) InScope(schema, table string) bool {
	if Own(schema, table) {
		return false
	}
	if sc.Exact {
		return (len(sc.Schemas) == 0 || slices.Contains(sc.Schemas, schema)) &&
			(len(sc.Tables) == 0 || slices.Contains(sc.Tables, schema+"."+table))
	}
	if len(sc.Schemas) > 0 && !containsFold(sc.Schemas, schema) {
		return false
	}
	if len(sc.Tables) > 0 && !containsFold(sc.Tables, table) && !containsFold(sc.Tables, schema+"."+table) {
		return false
	}
	return true
}

// Own reports writeamp's own bookkeeping: check's undo journal
// (writeamp_undo_<run>, a schema on PostgreSQL and SQL Server, a database
// on MySQL/MariaDB), the MySQL/MariaDB monitor ledger (writeamp_ledger) and
// the owner marker table (writeamp_owner) of a schema a workload created.
// Only writeamp creates these names; measured, the journal and its
// primary key showed up in findings, budgets and the per-row denominator.
// table "" asks about the schema as a whole.
func Own(schema, table string) bool {
	s := strings.ToLower(schema)
	switch {
	case strings.HasPrefix(s, "writeamp_undo_"), s == "writeamp_ledger":
		return true
	case strings.HasPrefix(s, "writeamp_") && strings.EqualFold(table, "writeamp_owner"):
		return true
	}
	return false
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// ScopeError is a --schema or --table that names nothing on the server.
type ScopeError struct{ msg string }

func (e *ScopeError) Error() string { return e.msg }

// Resolve turns a scope as the user typed it into the catalog's exact names,
// by the database's own identifier rules (PostgreSQL folds unquoted names to
// lower case, Oracle to upper, MySQL and SQL Server compare by their case
// setting), so --schema and --table follow one rule. A schema or table that
// matches nothing is a *ScopeError naming what exists. The result has Exact
// set: InScope then compares names exactly.
func Resolve(ctx context.Context, q dialects.Querier, s dialects.Server, sc Scope) (Scope, error) {
	if len(sc.Schemas) == 0 && len(sc.Tables) == 0 {
		return sc, nil
	}
	d, ok := dialects.Get(s.Dialect)
	if !ok {
		return sc, fmt.Errorf("no dialect %q", s.Dialect)
	}
	idents, ok := d.(dialects.Identifiers)
	if !ok {
		return sc, nil
	}
	match, rule, err := idents.IdentMatcher(ctx, q, s)
	if err != nil {
		return sc, err
	}
	schemas, err := column(ctx, q, s, "scope_schemas", 1)
	if err != nil {
		return sc, fmt.Errorf("list schemas: %w", err)
	}
	tables, err := column(ctx, q, s, "scope_tables", 2)
	if err != nil {
		return sc, fmt.Errorf("list tables: %w", err)
	}
	schemas = slices.DeleteFunc(schemas, func(n []string) bool { return Own(n[0], "") })
	tables = slices.DeleteFunc(tables, func(n []string) bool { return Own(n[0], n[1]) })
	out := Scope{Exact: true}
	for _, typed := range sc.Schemas {
		found := false
		for _, n := range schemas {
			if match(typed, n[0]) {
				found = true
				if !slices.Contains(out.Schemas, n[0]) {
					out.Schemas = append(out.Schemas, n[0])
				}
			}
		}
		if !found {
			return sc, &ScopeError{fmt.Sprintf("--schema %s: no such schema (%s); schemas here: %s", typed, rule, listed(schemas, nil))}
		}
	}
	for _, typed := range sc.Tables {
		parts := splitQualified(typed)
		if len(parts) > 2 {
			return sc, &ScopeError{fmt.Sprintf("--table %s: give a table as NAME or SCHEMA.NAME", typed)}
		}
		var candidates [][]string
		for _, n := range tables {
			if len(out.Schemas) > 0 && !slices.Contains(out.Schemas, n[0]) {
				continue
			}
			candidates = append(candidates, n)
		}
		found := false
		for _, n := range candidates {
			if match(parts[len(parts)-1], n[1]) && (len(parts) == 1 || match(parts[0], n[0])) {
				found = true
				if fqn := n[0] + "." + n[1]; !slices.Contains(out.Tables, fqn) {
					out.Tables = append(out.Tables, fqn)
				}
			}
		}
		if !found {
			where := ""
			if len(out.Schemas) > 0 {
				where = " in " + strings.Join(out.Schemas, ", ")
			}
			return sc, &ScopeError{fmt.Sprintf("--table %s: no such table%s (%s); tables here: %s", typed, where, rule, listed(candidates, func(n []string) string { return n[0] + "." + n[1] }))}
		}
	}
	return out, nil
}

// listed names up to 20 catalog entries for an error.
func listed(rows [][]string, name func([]string) string) string {
	if len(rows) == 0 {
		return "none"
	}
	var out []string
	for _, r := range rows {
		if len(out) == 20 {
			return strings.Join(out, ", ") + fmt.Sprintf(" and %d more", len(rows)-20)
		}
		if name != nil {
			out = append(out, name(r))
		} else {
			out = append(out, r[0])
		}
	}
	return strings.Join(out, ", ")
}

// splitQualified cuts schema.table at dots outside double quotes, backticks
// and brackets, keeping each part's quotes for the identifier rule.
func splitQualified(s string) []string {
	var out []string
	start := 0
	var close byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case close != 0 && c == close:
			close = 0
		case close != 0:
		case c == '"' || c == '`':
			close = c
		case c == '[':
			close = ']'
		case c == '.':
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func column(ctx context.Context, q dialects.Querier, s dialects.Server, name string, n int) ([][]string, error) {
	text, err := queries.Get(s.Dialect, name, s.VersionNum)
	if err != nil {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, text)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][]string
	for rows.Next() {
		vals := make([]string, n)
		ptrs := make([]any, n)
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		out = append(out, vals)
	}
	return out, rows.Err()
}
