package oracle

import (
	"context"
	"strings"

	"github.com/writeamp/writeamp/dialects"
)

// IdentMatcher: Oracle folds an unquoted name to upper case and takes a
// double-quoted one exactly.
func (Dialect) IdentMatcher(context.Context, dialects.Querier, dialects.Server) (func(string, string) bool, string, error) {
	return func(typed, actual string) bool {
		if name, quoted := dialects.Unquote(typed, '"', '"'); quoted {
			return name == actual
		}
		return strings.ToUpper(typed) == actual
	}, "Oracle reads an unquoted name in upper case; write it in double quotes for the exact name", nil
}
