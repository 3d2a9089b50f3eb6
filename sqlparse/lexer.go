package sqlparse

import (
	"fmt"
	"math"
	"strings"
)

type kind uint8

const (
	space   kind = iota
	comment      // -- … , # … (MySQL), /* … */
	word         // keyword or bare identifier (PostgreSQL and MySQL allow $ inside)
	ident        // "quoted", `quoted` (MySQL), [quoted] (SQL Server)
	str          // '…', E'…', N'…', q'[…]', $tag$…$tag$
	number
	punct // one byte: ; ( ) , . = and every other operator character
	// exec is MySQL's /*! … */ and MariaDB's /*M! … */: a comment to
	// other servers, statement text to MySQL/MariaDB, so never dropped.
	exec
)

type token struct {
	kind       kind
	start, end int32
}

// rules are one dialect's lexical rules: what quotes, escapes and comments
// look like. They decide where a statement can end, so each difference
// between the dialects is here and nowhere else.
type rules struct {
	dialect string
	// mysqlDashes: "--" starts a comment only when followed by whitespace,
	// a control character or the end (MySQL); elsewhere always.
	mysqlDashes bool
	hashComment bool // # to the end of the line (MySQL)
	nestComment bool // /* /* */ */ nests (PostgreSQL, SQL Server)
	execComment bool // /*! … */ and /*M! … */ are statement text (MySQL)
	// backslash: '…' and "…" honour backslash escapes (MySQL's default
	// sql_mode, without NO_BACKSLASH_ESCAPES).
	backslash     bool
	doubleIsStr   bool // "…" is a string (MySQL without ANSI_QUOTES)
	backtick      bool // `ident` (MySQL), doubled `` inside, no backslash escape
	brackets      bool // [ident] (SQL Server), ]] inside
	dollar        bool // $tag$ … $tag$ (PostgreSQL)
	eString       bool // E'…' honours backslash escapes (PostgreSQL)
	oracleQ       bool // q'[…]', nq'{…}' (Oracle alternative quoting)
	dollarInIdent bool // a$b is one word (PostgreSQL, MySQL, Oracle)
	// identBytes may follow a word's first character besides letters,
	// digits and _: # and @ in SQL Server and Oracle names (V$SESSION, a#b).
	identBytes string
}

var (
	pgRules     = rules{dialect: Postgres, nestComment: true, dollar: true, eString: true, dollarInIdent: true}
	mysqlRules  = rules{dialect: MySQL, mysqlDashes: true, hashComment: true, execComment: true, backslash: true, doubleIsStr: true, backtick: true, dollarInIdent: true}
	tsqlRules   = rules{dialect: SQLServer, nestComment: true, brackets: true, dollarInIdent: true, identBytes: "#@"}
	oracleRules = rules{dialect: Oracle, oracleQ: true, dollarInIdent: true, identBytes: "#"}
	// ansiRules are what the four dialects share: '' and "" doubled, -- and
	// /* */ comments. Enough for SQL the program embeds and tests itself.
	ansiRules = rules{dialect: "ansi"}
)

// SyntaxError is input the lexer cannot read: an unterminated quote or
// comment. Line and Column are 1-based.
type SyntaxError struct {
	Line, Column int
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

func syntaxErr(src string, at int, format string, a ...any) *SyntaxError {
	line := 1 + strings.Count(src[:at], "\n")
	col := at - strings.LastIndexByte(src[:at], '\n')
	return &SyntaxError{Line: line, Column: col, Msg: fmt.Sprintf(format, a...)}
}

func isWordStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (r rules) isWordByte(c byte) bool {
	return isWordStart(c) || isDigit(c) || c == '$' && r.dollarInIdent || strings.IndexByte(r.identBytes, c) >= 0
}

// lex cuts src into tokens; every byte of src belongs to exactly one token.
func lex(r rules, src string) ([]token, error) {
	if len(src) > math.MaxInt32 { // token offsets are int32: half the memory of a large script's tokens
		return nil, fmt.Errorf("sqlparse: %d bytes of SQL is more than the %d this reads", len(src), math.MaxInt32)
	}
	// Two passes: counting first and filling an exact slice is cheaper than
	// growing one (on a large script the copies of append take most of the
	// time) and holds no spare capacity.
	n := 0
	err := r.each(src, func(kind, int, int) { n++ })
	if err != nil {
		return nil, err
	}
	out := make([]token, 0, n)
	r.each(src, func(k kind, start, end int) { out = append(out, token{k, int32(start), int32(end)}) })
	return out, nil
}

func (r rules) each(src string, fn func(k kind, start, end int)) error {
	for i := 0; i < len(src); {
		start := i
		k, end, err := r.next(src, i)
		if err != nil {
			return err
		}
		if end <= start { // never: every branch consumes a byte
			end = start + 1
		}
		fn(k, start, end)
		i = end
	}
	return nil
}

func (r rules) next(s string, i int) (kind, int, error) {
	c := s[i]
	at := func(j int) byte {
		if j < len(s) {
			return s[j]
		}
		return 0
	}
	switch {
	case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
		j := i + 1
		for j < len(s) && strings.IndexByte(" \t\n\r\f\v", s[j]) >= 0 {
			j++
		}
		return space, j, nil
	case c == '-' && at(i+1) == '-' && (!r.mysqlDashes || i+2 >= len(s) || at(i+2) <= ' '):
		return comment, lineEnd(s, i), nil
	case c == '#' && r.hashComment:
		return comment, lineEnd(s, i), nil
	case c == '/' && at(i+1) == '*':
		k := comment
		if r.execComment && (at(i+2) == '!' || at(i+2) == 'M' && at(i+3) == '!') {
			k = exec
		}
		end, ok := blockCommentEnd(s, i, r.nestComment)
		if !ok {
			return 0, 0, syntaxErr(s, i, "unterminated /* comment")
		}
		return k, end, nil
	case c == '\'':
		return r.quoted(s, i, i, '\'', r.backslash)
	case c == '"':
		k := ident
		if r.doubleIsStr {
			k = str
		}
		_, end, err := r.quoted(s, i, i, '"', r.backslash && r.doubleIsStr)
		return k, end, err
	case c == '`' && r.backtick:
		_, end, err := r.quoted(s, i, i, '`', false)
		return ident, end, err
	case c == '[' && r.brackets:
		_, end, err := r.quoted(s, i, i, ']', false)
		return ident, end, err
	case (c == 'E' || c == 'e') && at(i+1) == '\'' && r.eString:
		return r.quoted(s, i, i+1, '\'', true)
	case r.oracleQ && (c == 'q' || c == 'Q') && at(i+1) == '\'' && i+2 < len(s):
		return oracleQuote(s, i, i+2)
	case r.oracleQ && (c == 'n' || c == 'N') && (at(i+1) == 'q' || at(i+1) == 'Q') && at(i+2) == '\'' && i+3 < len(s):
		return oracleQuote(s, i, i+3)
	case c == '$' && r.dollar:
		if tag, ok := dollarTag(s[i:]); ok {
			end := strings.Index(s[i+len(tag):], tag)
			if end < 0 {
				return 0, 0, syntaxErr(s, i, "unterminated dollar-quoted string %s", tag)
			}
			return str, i + 2*len(tag) + end, nil
		}
		j := i + 1
		for j < len(s) && isDigit(s[j]) { // $1: a parameter
			j++
		}
		return punct, j, nil
	case isWordStart(c):
		j := i + 1
		for j < len(s) && r.isWordByte(s[j]) {
			j++
		}
		return word, j, nil
	case isDigit(c):
		j := i + 1
		for j < len(s) && (isDigit(s[j]) || s[j] == '.' || isWordStart(s[j])) {
			j++
		}
		return number, j, nil
	}
	return punct, i + 1, nil
}

func lineEnd(s string, i int) int {
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(s)
}

// blockCommentEnd returns the index after the comment starting at s[i:].
func blockCommentEnd(s string, i int, nest bool) (int, bool) {
	depth := 0
	for j := i; j+1 < len(s); {
		switch {
		case s[j] == '/' && s[j+1] == '*' && (nest || depth == 0):
			depth++
			j += 2
		case s[j] == '*' && s[j+1] == '/':
			depth--
			j += 2
			if depth == 0 {
				return j, true
			}
		default:
			j++
		}
	}
	return 0, false
}

// quoted reads a quoted token whose opening quote is s[q] (the token starts
// at start, before any prefix such as E); close is the closing character,
// doubled inside to stand for itself.
func (r rules) quoted(s string, start, q int, close byte, backslash bool) (kind, int, error) {
	for j := q + 1; j < len(s); j++ {
		switch {
		case backslash && s[j] == '\\':
			j++
		case s[j] == close:
			if j+1 < len(s) && s[j+1] == close {
				j++
				continue
			}
			return str, j + 1, nil
		}
	}
	return 0, 0, syntaxErr(s, start, "unterminated quoted %s starting %s", what(close), snippet(s[start:]))
}

func what(close byte) string {
	if close == '\'' {
		return "string"
	}
	return "identifier"
}

func snippet(s string) string {
	if len(s) > 20 {
		s = s[:20] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// oracleQuote reads q'<d>…<d>' where s[d] is the delimiter: the closing one
// is the matching bracket for ( [ { <, else the same character.
func oracleQuote(s string, start, d int) (kind, int, error) {
	open := s[d]
	closeBy := map[byte]byte{'(': ')', '[': ']', '{': '}', '<': '>'}
	cl, ok := closeBy[open]
	if !ok {
		cl = open
	}
	for j := d + 1; j+1 < len(s); j++ {
		if s[j] == cl && s[j+1] == '\'' {
			return str, j + 2, nil
		}
	}
	return 0, 0, syntaxErr(s, start, "unterminated q-quoted string starting %s", snippet(s[start:]))
}

// dollarTag recognizes $$ or $tag$ at the start of s (a tag does not start
// with a digit: $1 is a parameter).
func dollarTag(s string) (string, bool) {
	for j := 1; j < len(s); j++ {
		c := s[j]
		if c == '$' {
			return s[:j+1], true
		}
		if !(isWordStart(c) || j > 1 && isDigit(c)) {
			return "", false
		}
	}
	return "", false
}

// significant reports a token that is part of a statement's text.
func (t token) significant() bool { return t.kind != space && t.kind != comment }

func (t token) text(src string) string { return src[t.start:t.end] }

// is reports a word token equal to w, case-insensitively.
func (t token) is(src, w string) bool {
	return t.kind == word && strings.EqualFold(src[t.start:t.end], w)
}
