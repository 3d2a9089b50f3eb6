package postgres

import (
	"context"
	"strings"

	"github.com/writeamp/writeamp/dialects"
)

// IdentMatcher: PostgreSQL folds an unquoted name to lower case (ASCII
// letters) and takes a double-quoted one exactly.
func (Dialect) IdentMatcher(context.Context, dialects.Querier, dialects.Server) (func(string, string) bool, string, error) {
	return func(typed, actual string) bool {
		if name, quoted := dialects.Unquote(typed, '"', '"'); quoted {
			return name == actual
		}
		return foldLower(typed) == actual
	}, "PostgreSQL reads an unquoted name in lower case; write it in double quotes for the exact name", nil
}

func foldLower(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}
