package restore

import (
	"context"
	"fmt"
	"sort"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// Catalog is a database's definitions as its catalog views list them, one
// line per fact (an object, a column with its type, an index key part …),
// sorted: two readings compare as text. queries/<dialect>/check.sql
// (check_catalog) says what each dialect lists and what it leaves out.
type Catalog []string

// ReadCatalog reads the catalog of the database s names: on MySQL/MariaDB
// the DSN's database in detail (every user database when it names none)
// and the names of all user databases; on PostgreSQL and SQL Server the
// connected database; on Oracle the current schema.
func ReadCatalog(ctx context.Context, q dialects.Querier, s dialects.Server) (Catalog, error) {
	text, err := queries.Get(s.Dialect, "check_catalog", s.VersionNum)
	if err != nil {
		return nil, fmt.Errorf("check: no catalog query for %s: %w", s, err)
	}
	rows, err := q.QueryContext(ctx, text, dialects.CheckOf(s.Dialect).QueryArgs(s, text)...)
	if err != nil {
		return nil, fmt.Errorf("read the catalog: %w", err)
	}
	defer rows.Close()
	var out Catalog
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return nil, fmt.Errorf("read the catalog: %w", err)
		}
		out = append(out, line)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the catalog: %w", err)
	}
	// What the definitions leave out (owners, privileges, policies,
	// persistence, settings …), where the dialect lists it.
	if more, err := queries.Get(s.Dialect, "check_catalog_more", s.VersionNum); err == nil {
		mrows, err := q.QueryContext(ctx, more)
		if err != nil {
			return nil, fmt.Errorf("read the catalog (owners, privileges, settings): %w", err)
		}
		defer mrows.Close()
		for mrows.Next() {
			var line string
			if err := mrows.Scan(&line); err != nil {
				return nil, fmt.Errorf("read the catalog: %w", err)
			}
			out = append(out, line)
		}
		if err := mrows.Err(); err != nil {
			return nil, fmt.Errorf("read the catalog: %w", err)
		}
	}
	sort.Strings(out)
	return out, nil
}

// Equal reports two readings with the same lines.
func (c Catalog) Equal(o Catalog) bool {
	a, r := c.Diff(o)
	return len(a) == 0 && len(r) == 0
}

// Diff lists the lines only after has (added) and only c has (removed).
func (c Catalog) Diff(after Catalog) (added, removed []string) {
	count := map[string]int{}
	for _, l := range c {
		count[l]++
	}
	for _, l := range after {
		if count[l] > 0 {
			count[l]--
			continue
		}
		added = append(added, l)
	}
	seen := map[string]int{}
	for _, l := range after {
		seen[l]++
	}
	for _, l := range c {
		if seen[l] > 0 {
			seen[l]--
			continue
		}
		removed = append(removed, l)
	}
	return added, removed
}
