package explain

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/sqlparse"
)

// Index is one index of a table, with the columns each part reads.
type Index struct {
	Name      string   `json:"name"`
	Method    string   `json:"method,omitempty"` // btree, gin, brin, ...
	Primary   bool     `json:"primary,omitempty"`
	Keys      []string `json:"keys,omitempty"`       // key columns and the columns of key expressions
	Include   []string `json:"include,omitempty"`    // INCLUDE columns
	Predicate []string `json:"predicate,omitempty"`  // columns of a partial index's WHERE
	Expr      bool     `json:"expression,omitempty"` // a key is an expression
	Partial   bool     `json:"partial,omitempty"`
	// Planned: created by an earlier statement of the same file, not (yet)
	// in the catalog.
	Planned bool `json:"planned,omitempty"`
}

// Table is a table's indexes as the catalog (and the file) has them.
type Table struct {
	Schema, Name string
	Found        bool
	Indexes      []Index
	// Columns by lower-cased name (PostgreSQL): what a SET expression's new
	// value can be compared with. Empty where the catalog was not read.
	Columns map[string]Column
	// Fillfactor is the heap's (PostgreSQL; 100 when unset, 0 unknown).
	Fillfactor int
	// ToastIndex is the qualified name of the index of the table's TOAST
	// relation, "" when it has none.
	ToastIndex string
}

// Column is what the prediction needs of one column.
type Column struct {
	Type    string // pg_type.typname of the column's type
	NotNull bool
	// Toastable: a variable-length column whose storage allows it out of
	// line, so a large new value goes to the TOAST relation in chunks.
	Toastable bool
}

// Reader reads tables' indexes for a dialect.
type Reader func(ctx context.Context, q dialects.Querier, schema, table string) (Table, error)

// ReaderFor returns the catalog reader of a dialect.
func ReaderFor(dialect string) (Reader, error) {
	switch dialect {
	case "postgres":
		return readPostgres, nil
	case "mysql":
		return readMySQL, nil
	}
	return nil, fmt.Errorf("explain: %s is not supported yet (PostgreSQL and MySQL/MariaDB are)", dialect)
}

func readPostgres(ctx context.Context, q dialects.Querier, schema, table string) (Table, error) {
	quote, err := dialects.QuoterOf("postgres")
	if err != nil {
		return Table{Schema: schema, Name: table}, err
	}
	name := quote.QuoteIdent(table)
	if schema != "" {
		name = quote.QuoteIdent(schema) + "." + name
	}
	t := Table{Schema: schema, Name: table}
	rows, err := queries.Query(ctx, q, "postgres", "explain_table_indexes", 0, name)
	if err != nil {
		return t, fmt.Errorf("explain: read the indexes of %s: %w", name, err)
	}
	defer rows.Close()
	for rows.Next() {
		var ix Index
		var def string
		if err := rows.Scan(&t.Schema, &t.Name, &ix.Name, &def, &ix.Method, &ix.Primary); err != nil {
			return t, err
		}
		t.Found = true
		if ix.Name == "" {
			continue // a table without indexes
		}
		// PostgreSQL's parser reads the deparsed definition back: the same
		// reading of key, INCLUDE, expression and predicate columns as a
		// CREATE INDEX in the file gets.
		st, err := sqlparse.Split(sqlparse.Postgres, def)
		if err != nil {
			return t, fmt.Errorf("explain: read the definition of index %s: %w", ix.Name, err)
		}
		for _, p := range sqlparse.Indexes(sqlparse.Postgres, st) {
			ix.Keys, ix.Include, ix.Predicate, ix.Expr, ix.Partial = p.Keys, p.Include, p.Predicate, p.Expression, p.Partial
		}
		t.Indexes = append(t.Indexes, ix)
	}
	if err := rows.Err(); err != nil || !t.Found {
		return t, err
	}
	return t, readPostgresColumns(ctx, q, name, &t)
}

func readPostgresColumns(ctx context.Context, q dialects.Querier, name string, t *Table) error {
	rows, err := queries.Query(ctx, q, "postgres", "explain_table_columns", 0, name)
	if err != nil {
		return fmt.Errorf("explain: read the columns of %s: %w", name, err)
	}
	defer rows.Close()
	t.Columns = map[string]Column{}
	for rows.Next() {
		var col, ff string
		var c Column
		if err := rows.Scan(&col, &c.Type, &c.NotNull, &c.Toastable, &ff, &t.ToastIndex); err != nil {
			return err
		}
		t.Columns[strings.ToLower(col)] = c
		if n, err := strconv.Atoi(ff); err == nil {
			t.Fillfactor = n
		}
	}
	return rows.Err()
}

func readMySQL(ctx context.Context, q dialects.Querier, schema, table string) (Table, error) {
	t := Table{Schema: schema, Name: table}
	var sch any
	if schema != "" {
		sch = schema
	}
	rows, err := queries.Query(ctx, q, "mysql", "explain_table_indexes", 0, sch, table)
	if err != nil {
		return t, fmt.Errorf("explain: read the indexes of %s: %w", table, err)
	}
	defer rows.Close()
	byName := map[string]*Index{}
	var order []string
	for rows.Next() {
		var name, col string
		var nonUnique int
		if err := rows.Scan(&t.Schema, &t.Name, &name, &col, &nonUnique); err != nil {
			return t, err
		}
		t.Found = true
		ix := byName[name]
		if ix == nil {
			ix = &Index{Name: name, Method: "btree", Primary: strings.EqualFold(name, "PRIMARY")}
			byName[name] = ix
			order = append(order, name)
		}
		if col == "" {
			ix.Expr = true
			continue
		}
		ix.Keys = append(ix.Keys, strings.ToLower(col))
	}
	for _, n := range order {
		t.Indexes = append(t.Indexes, *byName[n])
	}
	return t, rows.Err()
}

// ReadTx opens the read-only transaction explain reads the catalog in.
func ReadTx(ctx context.Context, db *sql.DB) (*sql.Tx, error) {
	return db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
}
