package postgres

import (
	"regexp"
	"strings"
	"sync"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

var _ dialects.OwnStatements = Dialect{}

// OwnStatement implements dialects.OwnStatements: text, as
// pg_stat_statements recorded it, is one of writeamp's own reads or the
// transaction statements of its read-only snapshot.
func (Dialect) OwnStatement(text string) bool {
	return ownStatements()[NormaliseStatement(text)]
}

// ownStatements are writeamp's own SQL texts as pg_stat_statements shows
// them: constants replaced (NormaliseStatement does the same to both
// sides), and the transaction statements of a read-only snapshot.
var ownStatements = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, b := range queries.All() {
		m[NormaliseStatement(strings.ReplaceAll(b.SQL, "{{schema}}", `"public"`))] = true
	}
	// PostgreSQL 17+ normalises the savepoint's name too (SAVEPOINT $1): that
	// entry merges every savepoint of the database, and writes no log.
	for _, t := range []string{"begin read only", "rollback", "commit", "SAVEPOINT writeamp_collector", "ROLLBACK TO SAVEPOINT writeamp_collector", "SAVEPOINT $1", "ROLLBACK TO SAVEPOINT $1"} {
		m[NormaliseStatement(t)] = true
	}
	return m
})

var (
	// pg_stat_statements replaces every constant: numbers, strings and the
	// booleans true/false (a minus sign stays outside: -1 becomes -$1 in
	// some versions and $1 in others, so "-?" is folded to "?" after).
	stmtParamRe   = regexp.MustCompile(`\$\d+|'(?:[^']|'')*'|\b\d+(?:\.\d+)?\b|(?i)\b(?:true|false)\b`)
	stmtCommentRe = regexp.MustCompile(`--[^\n]*|/\*.*?\*/`)
	stmtNullRe    = regexp.MustCompile(`\bnull\b`)
	// PostgreSQL 18 squashes a list of constants into one: IN ($1 /*, ... */).
	stmtListRe = regexp.MustCompile(`\(\?(?:, \?)*\)`)
	// and the value of a SET: SET LOCAL x = $1 (it was a word, snapshot).
	stmtSetRe = regexp.MustCompile(`^(set (?:local |session )?[a-z_.]+ (?:=|to)) [^ ]+$`)
)

// NormaliseStatement is a statement's text in a form comparable between the
// SQL writeamp sends and the text pg_stat_statements records for it: every
// constant (and a parameter) as ?, comments dropped, spaces collapsed, lower
// case, and the lists and SET values later versions squash squashed.
func NormaliseStatement(s string) string {
	s = stmtParamRe.ReplaceAllString(stmtCommentRe.ReplaceAllString(s, ""), "?")
	s = strings.ReplaceAll(s, "-?", "?")
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	// A NULL constant (NULL::bigint) is a constant too; IS [NOT] NULL is not.
	s = strings.NewReplacer("is null", "is \x00", "is not null", "is not \x00").Replace(s)
	s = strings.ReplaceAll(stmtNullRe.ReplaceAllString(s, "?"), "\x00", "null")
	s = stmtListRe.ReplaceAllString(strings.NewReplacer("( ", "(", " )", ")").Replace(s), "(?)")
	return stmtSetRe.ReplaceAllString(s, "$1 ?")
}
