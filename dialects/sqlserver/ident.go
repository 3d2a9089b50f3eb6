package sqlserver

import (
	"context"
	"fmt"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// IdentMatcher: SQL Server compares names by the database's collation,
// case-insensitively under the default (_CI_) collations; [brackets] or
// double quotes around a name are only quoting.
func (Dialect) IdentMatcher(ctx context.Context, q dialects.Querier, s dialects.Server) (func(string, string) bool, string, error) {
	var sensitive int
	if err := queries.QueryRow(ctx, q, Name, "identifier_case", s.VersionNum).Scan(&sensitive); err != nil {
		return nil, "", fmt.Errorf("sqlserver: read the database's collation: %w", err)
	}
	if sensitive == 1 {
		return dialects.CaseMatcher(true, '[', ']'), "this database's collation compares names case-sensitively", nil
	}
	return dialects.CaseMatcher(false, '[', ']'), "this database's collation compares names case-insensitively", nil
}
