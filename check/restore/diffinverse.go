package restore

import (
	"strings"
)

// DiffInverse is the undo PostgreSQL's catalog difference proves, for a
// migration that only added things (nothing there before it is gone or
// changed): DROP … IF EXISTS of each added object, by the schema-qualified
// name the server resolved (so a SET search_path inside the migration
// cannot redirect it). Triggers, constraints, policies, indexes and columns
// of tables the migration did not create go first, then relations,
// routines, types, schemas and extensions. ok is false when the difference
// has lines it cannot drop (something changed rather than added); the
// caller runs the result inside provedUndo either way, so an incomplete
// list is rolled back, never half-applied.
func DiffInverse(pre, post Catalog) (stmts []string, ok bool) {
	added, removed := pre.Diff(post)
	if len(removed) > 0 || len(added) == 0 {
		return nil, false
	}
	newRel := map[string]bool{}
	for _, l := range added {
		if rest, found := strings.CutPrefix(l, "relation "); found {
			if i := strings.LastIndex(rest, " kind "); i > 0 {
				newRel[rest[:i]] = true
			}
		}
	}
	var first, rels, later, schemas []string
	ok = true
	for _, l := range added {
		kind, rest, _ := strings.Cut(l, " ")
		switch kind {
		case "relation":
			i := strings.LastIndex(rest, " kind ")
			name, rk := rest[:i], rest[i+len(" kind "):]
			rk, _, _ = strings.Cut(rk, " ")
			what := map[string]string{"r": "TABLE", "p": "TABLE", "v": "VIEW", "m": "MATERIALIZED VIEW", "S": "SEQUENCE", "f": "FOREIGN TABLE", "c": "TYPE"}[rk]
			switch {
			case rk == "i" || rk == "I":
				if tbl := ownerOf(added, name); tbl == "" || !newRel[tbl] {
					first = append(first, "DROP INDEX IF EXISTS "+name)
				}
			case what == "":
				ok = false
			case rk == "v" || rk == "m":
				rels = append([]string{"DROP " + what + " IF EXISTS " + name}, rels...)
			default:
				rels = append(rels, "DROP "+what+" IF EXISTS "+name)
			}
		case "column":
			parts, _ := identParts(rest, 3)
			if len(parts) == 3 && !newRel[parts[0]+"."+parts[1]] {
				first = append(first, "ALTER TABLE "+parts[0]+"."+parts[1]+" DROP COLUMN IF EXISTS "+parts[2])
			}
		case "constraint":
			parts, _ := identParts(rest, 3)
			switch {
			case len(parts) != 3 || parts[1] == "-":
				ok = false // a domain's constraint: its type goes with it, or it is not provable
			case !newRel[parts[0]+"."+parts[1]]:
				first = append([]string{"ALTER TABLE " + parts[0] + "." + parts[1] + " DROP CONSTRAINT IF EXISTS " + parts[2]}, first...)
			}
		case "trigger-state":
			parts, _ := identParts(rest, 3)
			if len(parts) == 3 && !newRel[parts[0]+"."+parts[1]] {
				first = append([]string{"DROP TRIGGER IF EXISTS " + parts[2] + " ON " + parts[0] + "." + parts[1]}, first...)
			}
		case "policy":
			parts, _ := identParts(rest, 3)
			if len(parts) == 3 && !newRel[parts[0]+"."+parts[1]] {
				first = append([]string{"DROP POLICY IF EXISTS " + parts[2] + " ON " + parts[0] + "." + parts[1]}, first...)
			}
		case "function":
			sig, k, _ := strings.Cut(rest, " kind ")
			k, _, _ = strings.Cut(k, " ")
			what := map[string]string{"f": "FUNCTION", "w": "FUNCTION", "p": "PROCEDURE", "a": "AGGREGATE"}[k]
			if what == "" {
				ok = false
				continue
			}
			later = append(later, "DROP "+what+" IF EXISTS "+sig)
		case "type":
			name, k, _ := strings.Cut(rest, " kind ")
			k, _, _ = strings.Cut(k, " ")
			what := "TYPE"
			if k == "d" {
				what = "DOMAIN"
			}
			later = append(later, "DROP "+what+" IF EXISTS "+name)
		case "schema":
			schemas = append(schemas, "DROP SCHEMA IF EXISTS "+rest)
		case "extension":
			name, _, _ := strings.Cut(rest, " ")
			later = append([]string{"DROP EXTENSION IF EXISTS " + name}, later...)
		case "index", "view", "trigger", "relation-meta", "column-comment", "schema-meta", "sequence", "routine-body":
			// described by the lines above (or owned by what they drop)
		default:
			ok = false // a setting, a database's owner or privileges: not an object to drop
		}
	}
	return append(append(append(first, rels...), later...), schemas...), ok
}

// ownerOf is the table of index name, from its "index" line's definition.
func ownerOf(lines []string, name string) string {
	for _, l := range lines {
		if rest, ok := strings.CutPrefix(l, "index "+name+": "); ok {
			if _, after, found := strings.Cut(rest, " ON "); found {
				after = strings.TrimPrefix(after, "ONLY ")
				tbl, _, _ := strings.Cut(after, " USING ")
				return tbl
			}
		}
	}
	return ""
}

// identParts splits the first n dot-separated identifiers of s as
// quote_ident printed them ("a.b"."c" keeps its dot), each still quoted.
func identParts(s string, n int) ([]string, string) {
	var parts []string
	i := 0
	for len(parts) < n && i < len(s) {
		j := i
		if s[j] == '"' {
			j++
			for j < len(s) {
				if s[j] == '"' {
					if j+1 < len(s) && s[j+1] == '"' {
						j += 2
						continue
					}
					j++
					break
				}
				j++
			}
		} else {
			for j < len(s) && s[j] != '.' && s[j] != ' ' && s[j] != ':' {
				j++
			}
		}
		parts = append(parts, s[i:j])
		if j < len(s) && s[j] == '.' && len(parts) < n {
			j++
		}
		i = j
	}
	return parts, s[i:]
}
