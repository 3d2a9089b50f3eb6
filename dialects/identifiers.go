package dialects

import (
	"fmt"
	"regexp"
	"strconv"
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
