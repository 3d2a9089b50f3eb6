package dialects

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// PropMaxIdentifierBytes is the longest object name, in bytes, the server
// accepts, when its probe could tell (Oracle: 30 below COMPATIBLE 12.2, 128
// from it); PropMaxIdentifierWhy says what sets that limit.
const (
	PropMaxIdentifierBytes = "max_identifier_bytes"
	PropMaxIdentifierWhy   = "max_identifier_why"
)

// createdName finds the names a DDL block gives to new objects: tables,
// indexes, users and constraints, with or without a schema in front.
var createdName = regexp.MustCompile(`(?i)\b(?:CREATE\s+(?:UNIQUE\s+)?(?:TABLE|INDEX|USER)|CONSTRAINT)\s+(?:[^\s.(]+\.)?"?([\w$#]+)"?`)

// CheckIdentifiers refuses DDL naming an object longer than the server
// accepts, before anything is created: a limit found half-way would leave a
// half-made schema and an error about one name.
func CheckIdentifiers(s Server, ddl string) error {
	limit, err := strconv.Atoi(s.Prop(PropMaxIdentifierBytes))
	if err != nil || limit <= 0 {
		return nil
	}
	for _, m := range createdName.FindAllStringSubmatch(ddl, -1) {
		if name := m[1]; len(name) > limit {
			msg := fmt.Sprintf("the name %s is %d bytes and %s accepts %d", name, len(name), s, limit)
			if why := s.Prop(PropMaxIdentifierWhy); why != "" {
				msg += ": " + why
			}
			return fmt.Errorf("%s", msg)
		}
	}
	return nil
}

// CaseMatcher matches names on a server that compares them by a setting
// (MySQL's lower_case_table_names, SQL Server's collation) instead of
// folding them: open…close or "…" around a typed name is only quoting, and
// the comparison is exact or ignores case as the setting says.
func CaseMatcher(sensitive bool, open, close byte) func(typed, actual string) bool {
	unquote := func(t string) string {
		if n, ok := Unquote(t, open, close); ok {
			return n
		}
		n, _ := Unquote(t, '"', '"')
		return n
	}
	if sensitive {
		return func(typed, actual string) bool { return unquote(typed) == actual }
	}
	return func(typed, actual string) bool { return strings.EqualFold(unquote(typed), actual) }
}
