package sqlparse

import (
	"strings"
)

// splitMySQL follows the mysql client: statements end at the delimiter (";"
// unless a DELIMITER line changed it), outside quotes, backticks and
// comments; /*! … */ is statement text. Without DELIMITER, a CREATE
// PROCEDURE/FUNCTION/TRIGGER/EVENT body's BEGIN … END is kept whole (the
// client would cut it at its first ";" and the server would refuse both
// halves).
func splitMySQL(src string, toks []token) []Statement {
	// A delimiter inside a word splits that token: the caller's tokens are
	// copied before the first such change (a large script has tens of
	// millions, and most scripts never need it).
	owned := false
	own := func() {
		if !owned {
			toks, owned = append([]token(nil), toks...), true
		}
	}
	var out []Statement
	delim := ";"
	from := 0
	var words []string // the statement's words so far, lower case
	depth := 0
	routine := false
	emit := func(part []token) {
		if s, ok := makeStatement(src, part); ok {
			out = append(out, s)
		}
		words, depth, routine = nil, 0, false
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind == space || t.kind == comment {
			continue
		}
		// DELIMITER is a client command at the start of a statement: the
		// rest of its line up to the first blank is the new delimiter.
		if len(words) == 0 && t.is(src, "delimiter") {
			eol := lineEnd(src, int(t.start))
			if f := strings.Fields(src[t.end:eol]); len(f) > 0 {
				emit(toks[from:i])
				delim = f[0]
				for i+1 < len(toks) && int(toks[i+1].start) < eol {
					i++
				}
				from = i + 1
				continue
			}
		}
		if delim != ";" && t.kind == word {
			// $ is an identifier character, so "END$$" is one word: the
			// client still sees the delimiter in it.
			if k := strings.Index(t.text(src), delim); k > 0 {
				emit(append(toks[from:i:i], token{word, t.start, t.start + int32(k)}))
				own()
				toks[i].start = t.start + int32(k)
				from = i
				i--
				continue
			}
		}
		if (t.kind == punct || t.kind == word) && strings.HasPrefix(src[t.start:], delim) && (delim != ";" || depth == 0) {
			emit(toks[from:i])
			end := t.start + int32(len(delim))
			for i+1 < len(toks) && toks[i+1].start < end {
				i++
			}
			from = i + 1
			if toks[i].end > end { // the delimiter ended inside this token
				own()
				toks[i].start = end
				from = i
				i--
			}
			continue
		}
		if t.kind != word {
			continue
		}
		w := strings.ToLower(t.text(src))
		words = append(words, w)
		if len(words) > 1 && words[0] == "create" && (w == "procedure" || w == "function" || w == "trigger" || w == "event") {
			routine = true
		}
		if !routine {
			continue
		}
		switch w {
		case "begin", "case":
			if prevWord(words) != "end" { // END CASE closes, it does not open
				depth++
			}
		case "end":
			if nw := nextWord(src, toks, i); nw != "if" && nw != "loop" && nw != "while" && nw != "repeat" && depth > 0 {
				depth--
			}
		}
	}
	emit(toks[from:])
	return out
}

func prevWord(words []string) string {
	if len(words) < 2 {
		return ""
	}
	return words[len(words)-2]
}

func nextWord(src string, toks []token, i int) string {
	for j := i + 1; j < len(toks); j++ {
		if toks[j].significant() {
			if toks[j].kind == word {
				return strings.ToLower(toks[j].text(src))
			}
			return ""
		}
	}
	return ""
}

// lineOnly reports whether toks[i] is alone on its line (space and comments
// around it, on that line, allowed).
func lineOnly(src string, toks []token, i int) bool {
	for j := i - 1; j >= 0; j-- {
		if toks[j].kind == space && strings.Contains(toks[j].text(src), "\n") {
			break
		}
		if toks[j].kind != space {
			return false
		}
	}
	for j := i + 1; j < len(toks); j++ {
		if toks[j].kind == space && strings.Contains(toks[j].text(src), "\n") {
			break
		}
		if toks[j].kind != space && toks[j].kind != comment {
			return false
		}
	}
	return true
}

// splitTSQL follows sqlcmd: GO alone on a line (optionally GO n: the batch
// n times) ends a batch. A batch is then cut at its semicolons only when
// that cannot change its meaning: it declares no variable (DECLARE is
// scoped to the batch), defines no module (CREATE/ALTER PROCEDURE,
// FUNCTION, TRIGGER, VIEW must be alone in their batch) and has no
// BEGIN … END block; otherwise it is sent whole.
func splitTSQL(src string, toks []token) []Statement {
	var out []Statement
	from := 0
	batch := func(to, times int) {
		b := toks[from:to]
		var st []Statement
		if whole(src, b) {
			if s, ok := makeStatement(src, b); ok {
				st = []Statement{s}
			}
		} else {
			st = splitAt(src, b, func(int) bool { return true })
		}
		for range times {
			out = append(out, st...)
		}
	}
	for i, t := range toks {
		if !t.is(src, "go") {
			continue
		}
		if times, ok := goLine(src, toks, i); ok {
			batch(i, times)
			from = i + 1
			for from < len(toks) && !(toks[from].kind == space && strings.Contains(toks[from].text(src), "\n")) {
				from++ // the rest of the GO line: its count and a comment
			}
		}
	}
	batch(len(toks), 1)
	return out
}

// goLine reports whether toks[i] (the word GO) is sqlcmd's batch separator:
// alone at the start of its line, followed only by a repeat count and a
// comment.
func goLine(src string, toks []token, i int) (times int, ok bool) {
	for j := i - 1; j >= 0; j-- {
		if toks[j].kind == space && strings.Contains(toks[j].text(src), "\n") {
			break
		}
		if toks[j].kind != space {
			return 0, false
		}
	}
	times = 1
	for j, counted := i+1, false; j < len(toks); j++ {
		t := toks[j]
		switch {
		case t.kind == space && strings.Contains(t.text(src), "\n"):
			return times, true
		case t.kind == space || t.kind == comment:
		case t.kind == number && !counted:
			times, counted = atoi(t.text(src)), true
		default:
			return 0, false
		}
	}
	return times, true
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' || n > 1000 {
			return 1
		}
		n = n*10 + int(c-'0')
	}
	return max(n, 1)
}

func whole(src string, toks []token) bool {
	var first []string
	for i, t := range toks {
		if t.kind != word {
			continue
		}
		w := strings.ToLower(t.text(src))
		if len(first) < 4 {
			first = append(first, w)
		}
		switch w {
		case "declare":
			return true
		case "begin":
			switch nextWord(src, toks, i) {
			case "tran", "transaction", "distributed", "dialog", "conversation":
			default:
				return true
			}
		}
	}
	if len(first) > 0 && (first[0] == "create" || first[0] == "alter") {
		for _, w := range first[1:] {
			switch w {
			case "procedure", "proc", "function", "trigger", "view":
				return true
			}
		}
	}
	return false
}

// splitOracle follows SQL*Plus: a SQL statement ends at ";" (not sent) or
// at a line holding only "/"; a PL/SQL unit (DECLARE, BEGIN, CREATE [OR
// REPLACE] FUNCTION, PROCEDURE, PACKAGE, TRIGGER, TYPE, LIBRARY) runs to the
// "/" line, its own semicolons and final END; included.
func splitOracle(src string, toks []token) []Statement {
	var out []Statement
	from := 0
	var words []string
	plsql := false
	emit := func(to int) {
		if s, ok := makeStatement(src, toks[from:to]); ok {
			out = append(out, s)
		}
		words, plsql = nil, false
	}
	for i, t := range toks {
		switch {
		case t.kind == punct && src[t.start] == '/' && lineOnly(src, toks, i):
			emit(i)
			from = i + 1
		case t.kind == punct && src[t.start] == ';' && !plsql:
			emit(i)
			from = i + 1
		case t.kind == word && len(words) < 6:
			words = append(words, strings.ToLower(t.text(src)))
			plsql = plsql || isPLSQL(words)
		}
	}
	emit(len(toks))
	return out
}

func isPLSQL(words []string) bool {
	switch words[0] {
	case "declare", "begin":
		return true
	case "create":
	default:
		return false
	}
	for _, w := range words[1:] {
		switch w {
		case "or", "replace", "editionable", "noneditionable", "and", "compile", "resolve", "noforce":
		case "function", "procedure", "package", "trigger", "type", "library", "java":
			return true
		default:
			return false
		}
	}
	return false
}
