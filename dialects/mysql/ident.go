package mysql

import (
	"context"
	"fmt"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// IdentMatcher: MySQL and MariaDB compare database and table names as the
// server's lower_case_table_names says: 0 case-sensitively (names are
// files on a case-sensitive file system), 1 and 2 case-insensitively.
// Backticks or double quotes around a name are only quoting.
func (Dialect) IdentMatcher(ctx context.Context, q dialects.Querier, s dialects.Server) (func(string, string) bool, string, error) {
	var lctn int
	if err := queries.QueryRow(ctx, q, Name, "identifier_case", s.VersionNum).Scan(&lctn); err != nil {
		return nil, "", fmt.Errorf("mysql: read lower_case_table_names: %w", err)
	}
	if lctn == 0 {
		return dialects.CaseMatcher(true, '`', '`'),
			"this server compares database and table names case-sensitively (lower_case_table_names = 0)", nil
	}
	return dialects.CaseMatcher(false, '`', '`'),
		fmt.Sprintf("this server compares database and table names case-insensitively (lower_case_table_names = %d)", lctn), nil
}
