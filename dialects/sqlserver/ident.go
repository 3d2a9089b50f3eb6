package sqlserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// IdentMatcher: SQL Server compares names by the database's collation,
// case-insensitively under the default (_CI_) collations; [brackets] or
// double quotes around a name are only quoting.
func (Dialect) IdentMatcher(ctx context.Context, q dialects.Querier, s dialects.Server) (func(string, string) bool, string, error) {
	var sensitive int
	if err := q.QueryRowContext(ctx, queries.MustGet(Name, "identifier_case", s.VersionNum)).Scan(&sensitive); err != nil {
		return nil, "", fmt.Errorf("sqlserver: read the database's collation: %w", err)
	}
	unq := func(t string) string {
		if n, ok := dialects.Unquote(t, '[', ']'); ok {
			return n
		}
		n, _ := dialects.Unquote(t, '"', '"')
		return n
	}
	if sensitive == 1 {
		return func(typed, actual string) bool { return unq(typed) == actual },
			"this database's collation compares names case-sensitively", nil
	}
	return func(typed, actual string) bool { return strings.EqualFold(unq(typed), actual) },
		"this database's collation compares names case-insensitively", nil
}
