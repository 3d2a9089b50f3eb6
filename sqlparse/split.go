package sqlparse

import (
	"fmt"
	"regexp"
	"strings"
)

// Dialect names, as in package dialects.
const (
	Postgres  = "postgres"
	MySQL     = "mysql"
	SQLServer = "sqlserver"
	Oracle    = "oracle"
)

// Statement is one unit sent to the server.
type Statement struct {
	// Text is Source[Start:End]: from the first to the last token that is
	// not a comment, without the terminator (a PL/SQL block keeps its
	// END;, which is part of it).
	Text       string
	Start, End int
	Line       int // 1-based line of Start
	// pg is PostgreSQL's parse tree of Text; pgErr says why there is none.
	pg    *pgNode
	pgErr error
	// lexOnly: the parser was not asked (see Unparsed).
	lexOnly bool
}

// Script is a file split into statements. Files with goose annotations
// ("-- +goose Up" / "-- +goose Down") have both directions; others are all Up.
type Script struct {
	Up, Down []Statement
	// Annotated: the file had goose annotations, so Down is its own undo.
	Annotated bool
}

// Split cuts src into the statements a migration applies (a goose file's Up
// section). dialect is one of Postgres, MySQL, SQLServer, Oracle.
func Split(dialect, src string) ([]Statement, error) {
	sc, err := ParseScript(dialect, src)
	if err != nil {
		return nil, err
	}
	return sc.Up, nil
}

// Texts is Split returning only the statements' text.
func Texts(dialect, src string) ([]string, error) {
	st, err := Split(dialect, src)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(st))
	for i, s := range st {
		out[i] = s.Text
	}
	return out, nil
}

// Statements splits SQL that ships inside this program (a workload's DDL) at
// semicolons outside quotes and comments, with the rules every dialect
// shares, and without PostgreSQL's parser (no start-up cost). It panics on
// text it cannot read, which the program's own tests would have shown.
func Statements(src string) []string {
	st, err := splitWith(ansiRules, src)
	if err != nil {
		panic(fmt.Sprintf("sqlparse.Statements: %v", err))
	}
	out := make([]string, len(st.Up))
	for i, s := range st.Up {
		out[i] = s.Text
	}
	return out
}

func rulesOf(dialect string) (rules, error) {
	switch dialect {
	case Postgres:
		return pgRules, nil
	case MySQL:
		return mysqlRules, nil
	case SQLServer:
		return tsqlRules, nil
	case Oracle:
		return oracleRules, nil
	}
	return rules{}, fmt.Errorf("sqlparse: unknown dialect %q (postgres, mysql, sqlserver, oracle)", dialect)
}

// ParseScript splits src into its Up and Down statements.
func ParseScript(dialect, src string) (*Script, error) {
	r, err := rulesOf(dialect)
	if err != nil {
		return nil, err
	}
	if i := strings.IndexByte(src, 0); i >= 0 && dialect == Postgres {
		// The server (and its parser) read C strings: the rest would be lost.
		return nil, syntaxErr(src, i, "a NUL byte, which PostgreSQL does not accept in SQL text")
	}
	sc, err := splitWith(r, src)
	if err != nil {
		return nil, err
	}
	if dialect == Postgres {
		if sc.Up, err = pgAttach(src, sc.Up, !sc.Annotated); err != nil {
			return nil, err
		}
		if sc.Down, err = pgAttach(src, sc.Down, false); err != nil {
			return nil, err
		}
	}
	return sc, nil
}

var gooseRe = regexp.MustCompile(`^--\s*\+goose\s+(.*?)\s*$`)

// region is a run of tokens split by the dialect's rules, or (block) one
// goose StatementBegin/StatementEnd statement.
type region struct {
	toks  []token
	block bool
	down  bool
}

func splitWith(r rules, src string) (*Script, error) {
	toks, err := lex(r, src)
	if err != nil {
		return nil, err
	}
	regions, annotated, err := gooseRegions(r, src, toks)
	if err != nil {
		return nil, err
	}
	sc := &Script{Annotated: annotated}
	for _, rg := range regions {
		var st []Statement
		if rg.block {
			if s, ok := makeStatement(src, trimTerminator(r, src, rg.toks)); ok {
				st = []Statement{s}
			}
		} else {
			st = r.split(src, rg.toks)
		}
		if rg.down {
			sc.Down = append(sc.Down, st...)
		} else {
			sc.Up = append(sc.Up, st...)
		}
	}
	numberLines(src, sc.Up)
	numberLines(src, sc.Down)
	return sc, nil
}

// gooseRegions cuts the token stream at goose annotations (pressly/goose's
// grammar: Up, Down, StatementBegin, StatementEnd; NO TRANSACTION and ENVSUB
// are accepted and change nothing here).
func gooseRegions(r rules, src string, toks []token) ([]region, bool, error) {
	var out []region
	annotated, down, inBlock := false, false, false
	from := 0
	flush := func(to int, block bool) {
		if to > from {
			out = append(out, region{toks: toks[from:to], block: block, down: down})
		}
	}
	for i, t := range toks {
		if t.kind != comment {
			continue
		}
		m := gooseRe.FindStringSubmatch(t.text(src))
		if m == nil {
			continue
		}
		d := strings.ToLower(strings.Join(strings.Fields(m[1]), " "))
		switch d {
		case "up", "down":
			if inBlock {
				return nil, false, syntaxErr(src, int(t.start), "-- +goose %s inside a StatementBegin block", m[1])
			}
			if !annotated {
				for _, p := range toks[:i] {
					if p.significant() {
						return nil, false, syntaxErr(src, int(p.start), "a statement before the first -- +goose Up/Down annotation")
					}
				}
			}
			flush(i, false)
			annotated, down = true, d == "down"
		case "statementbegin":
			if inBlock {
				return nil, false, syntaxErr(src, int(t.start), "-- +goose StatementBegin inside another")
			}
			flush(i, false)
			inBlock = true
		case "statementend":
			if !inBlock {
				return nil, false, syntaxErr(src, int(t.start), "-- +goose StatementEnd without StatementBegin")
			}
			flush(i, true)
			inBlock = false
		case "no transaction", "envsub on", "envsub off":
			continue // a comment to us
		default:
			return nil, false, syntaxErr(src, int(t.start), "unknown goose annotation %q", m[1])
		}
		from = i + 1
	}
	if inBlock {
		return nil, false, syntaxErr(src, len(src), "-- +goose StatementBegin without StatementEnd")
	}
	flush(len(toks), false)
	return out, annotated, nil
}

// makeStatement trims comments and space from both ends of toks.
func makeStatement(src string, toks []token) (Statement, bool) {
	a, b := 0, len(toks)
	for a < b && !toks[a].significant() {
		a++
	}
	for b > a && !toks[b-1].significant() {
		b--
	}
	if a == b {
		return Statement{}, false
	}
	s, e := int(toks[a].start), int(toks[b-1].end)
	return Statement{Text: src[s:e], Start: s, End: e}, true
}

// numberLines sets each statement's Line from its Start in one pass over
// src: counting from the file's start for every statement made splitting
// quadratic (50,000 statements took minutes). Statements come in file
// order; one that starts before the previous restarts the count.
func numberLines(src string, st []Statement) {
	pos, line := 0, 1
	for i := range st {
		if st[i].Start < pos {
			pos, line = 0, 1
		}
		line += strings.Count(src[pos:st[i].Start], "\n")
		pos = st[i].Start
		st[i].Line = line
	}
}

// trimTerminator drops one final ";" of a goose block, except in Oracle,
// where a PL/SQL block's final ";" belongs to its END.
func trimTerminator(r rules, src string, toks []token) []token {
	if r.dialect == Oracle {
		return toks
	}
	for j := len(toks) - 1; j >= 0; j-- {
		if toks[j].significant() {
			if toks[j].kind == punct && src[toks[j].start] == ';' {
				return toks[:j]
			}
			break
		}
	}
	return toks
}

func (r rules) split(src string, toks []token) []Statement {
	switch r.dialect {
	case MySQL:
		return splitMySQL(src, toks)
	case SQLServer:
		return splitTSQL(src, toks)
	case Oracle:
		return splitOracle(src, toks)
	case Postgres:
		return splitPsql(src, toks)
	}
	return splitAt(src, toks, func(int) bool { return true })
}

// splitAt cuts at ";" tokens where cut(i) agrees; cut is called for every
// token in order, so it can keep state (nesting) as it goes.
func splitAt(src string, toks []token, cut func(i int) bool) []Statement {
	var out []Statement
	from := 0
	for i, t := range toks {
		if cut(i) && t.kind == punct && src[t.start] == ';' {
			if s, ok := makeStatement(src, toks[from:i]); ok {
				out = append(out, s)
			}
			from = i + 1
		}
	}
	if s, ok := makeStatement(src, toks[from:]); ok {
		out = append(out, s)
	}
	return out
}

// splitPsql is psql's rule: a ";" ends a statement outside parentheses and
// outside BEGIN … END (BEGIN ATOMIC bodies) and CASE … END, where BEGIN is
// not the statement's first word (that BEGIN starts a transaction).
func splitPsql(src string, toks []token) []Statement {
	paren, depth, words := 0, 0, 0
	return splitAt(src, toks, func(i int) bool {
		t := toks[i]
		switch {
		case t.kind == punct && src[t.start] == '(':
			paren++
		case t.kind == punct && src[t.start] == ')':
			if paren > 0 {
				paren--
			}
		case t.kind == punct && src[t.start] == ';':
			if paren > 0 || depth > 0 {
				return false
			}
			words = 0
			return true
		case t.kind == word:
			words++
			switch {
			case (t.is(src, "begin") || t.is(src, "case")) && words > 1:
				depth++
			case t.is(src, "end") && depth > 0:
				depth--
			}
		}
		return false
	})
}
