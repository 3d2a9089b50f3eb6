package sqlparse

import (
	"regexp"
	"strings"
)

// Index is an index a statement creates.
type Index struct {
	Name, Table, Schema string
	// Columns is every column the index reads: key columns, the columns of
	// key expressions, INCLUDE columns and the predicate's columns. An
	// UPDATE of any of them makes the update non-HOT on PostgreSQL.
	Columns                                               []string
	Keys                                                  []string // key columns and the columns of key expressions
	Include                                               []string // INCLUDE columns
	Predicate                                             []string // columns of a partial index's WHERE
	Expression, Partial, Unique, Concurrently, Constraint bool
	Method                                                string
	Line                                                  int
	Statement                                             string
}

// Update is an UPDATE and the columns it sets.
type Update struct {
	Table, Schema string
	Columns       []string
	From          bool // UPDATE … FROM / joined tables (only read)
	Line          int
	Statement     string
}

// Indexes lists the indexes the statements create: CREATE INDEX, and ALTER
// TABLE … ADD PRIMARY KEY / UNIQUE / INDEX (MySQL) / EXCLUDE (PostgreSQL).
func Indexes(dialect string, stmts []Statement) []Index {
	var out []Index
	for _, s := range stmts {
		var got []Index
		if dialect == Postgres {
			got = pgIndexes(s)
		} else if r, err := rulesOf(dialect); err == nil {
			got = lexIndexes(r, s.Text)
		}
		for i := range got {
			got[i].Line, got[i].Statement = s.Line, s.Text
		}
		out = append(out, got...)
	}
	return out
}

// Updates lists the UPDATE statements and the columns they set.
func Updates(dialect string, stmts []Statement) []Update {
	var out []Update
	for _, s := range stmts {
		var got []Update
		if dialect == Postgres {
			got = pgUpdates(s)
		} else if r, err := rulesOf(dialect); err == nil {
			got = lexUpdates(r, s.Text)
		}
		for i := range got {
			got[i].Line, got[i].Statement = s.Line, s.Text
		}
		out = append(out, got...)
	}
	return out
}

var (
	metaLineRe = regexp.MustCompile(`(?m)^[ \t]*\\.*$`)
	psqlVarRe  = regexp.MustCompile(`:(?:[A-Za-z_][A-Za-z0-9_]*|'[A-Za-z_][A-Za-z0-9_]*'|"[A-Za-z_][A-Za-z0-9_]*")`)
)

// WorkloadUpdates reads the UPDATEs of a workload's SQL: a file given to
// psql -f, a pgbench script or inline SQL. On PostgreSQL, psql and pgbench
// meta-commands (lines starting with a backslash) are left out and their
// variables (:name, :'name') read as parameters, so PostgreSQL's parser
// reads the statements around them.
func WorkloadUpdates(dialect, text string) ([]Update, error) {
	if dialect == Postgres {
		text = metaLineRe.ReplaceAllStringFunc(text, blank)
		text = replaceOutsideQuotes(pgRules, text, psqlVarRe, func(v string) string {
			return "$1" + strings.Repeat(" ", len(v)-2)
		})
	}
	st, err := Split(dialect, text)
	if err != nil {
		return nil, err
	}
	return Updates(dialect, st), nil
}

func blank(s string) string { return strings.Repeat(" ", len(s)) }

// replaceOutsideQuotes applies re to the punctuation and words of text
// (never inside strings, identifiers or comments), keeping every offset.
func replaceOutsideQuotes(r rules, text string, re *regexp.Regexp, repl func(string) string) string {
	toks, err := lex(r, text)
	if err != nil {
		return text
	}
	b := []byte(text)
	for i, t := range toks {
		if t.kind != punct || text[t.start] != ':' || i+1 >= len(toks) || (i > 0 && toks[i-1].kind == punct && text[toks[i-1].start] == ':') {
			continue
		}
		if loc := re.FindStringIndex(text[t.start:]); loc != nil && loc[0] == 0 && toks[i+1].start == t.end && int(t.start)+loc[1] == int(toks[i+1].end) {
			copy(b[t.start:], repl(text[t.start:int(t.start)+loc[1]]))
		}
	}
	return string(b)
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		k := strings.ToLower(s)
		if s != "" && !seen[k] {
			seen[k] = true
			out = append(out, s)
		}
	}
	return out
}
