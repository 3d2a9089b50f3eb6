package sqlparse

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// separatorLine: a line that is only a batch separator once the text stands
// alone (it was not alone in the source, e.g. "GO;").
var separatorLine = map[string]*regexp.Regexp{
	SQLServer: regexp.MustCompile(`(?im)^[ \t]*go([ \t]+\d+)?[ \t]*$`),
	Oracle:    regexp.MustCompile(`(?m)^[ \t]*/[ \t]*$`),
}

var fuzzDialects = []string{Postgres, MySQL, SQLServer, Oracle}

// joiners put statements back together so that each dialect's rules cut
// them apart again at the same places.
var joiners = map[string]string{Postgres: ";\n", MySQL: ";\n", SQLServer: "\nGO\n", Oracle: "\n/\n"}

// FuzzSplit: Split never panics; every statement is its source's text
// between Start and End, trimmed, in order and apart; joined again with the
// dialect's terminator the statements split into themselves; and on
// PostgreSQL, where the parser reads the whole input, the lexer's psql rule
// cuts it into as many statements as the parser does.
func FuzzSplit(f *testing.F) {
	for _, c := range splitCases {
		for i, d := range fuzzDialects {
			if d == c.dialect {
				f.Add(uint8(i), c.src)
			}
		}
	}
	for _, s := range []string{"a;b", "'x;'';y'", "$$;$$;", "$a$ $b$ ; $a$;", "/* ; */;", "-- ;\n;", `"a"";b"`, "$1;$2",
		"select 1 -- x\n;select 2", "E'\\\\';", "q'{;}'", "[a;]];b]", "`a``;`", "GO\nGO 3\n", "/\n/", "DELIMITER //\nx//\n"} {
		for i := range fuzzDialects {
			f.Add(uint8(i), s)
		}
	}
	// PostgreSQL's parser is a WebAssembly module compiled on first use:
	// seconds, and more on a busy machine. Compiled here, in each fuzz
	// worker before it takes inputs, it is not charged to the first seed,
	// which the fuzzing engine would otherwise give up on as hung after 10 s.
	if _, err := Split(Postgres, "select 1"); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, d uint8, src string) {
		dialect := fuzzDialects[int(d)%len(fuzzDialects)]
		st, err := Split(dialect, src)
		if err != nil {
			return
		}
		prev := 0
		for i, s := range st {
			repeat := i > 0 && dialect == SQLServer && s.Start <= st[i-1].Start // GO n runs a batch n times
			if s.Start < prev && !repeat || s.End <= s.Start || s.End > len(src) || src[s.Start:s.End] != s.Text {
				t.Fatalf("%s: statement %q at [%d,%d) is not the source there (previous end %d)", dialect, s.Text, s.Start, s.End, prev)
			}
			if strings.TrimSpace(s.Text) != s.Text || s.Line != 1+strings.Count(src[:s.Start], "\n") {
				t.Fatalf("%s: statement %q untrimmed or at the wrong line %d", dialect, s.Text, s.Line)
			}
			prev = s.End
		}
		lower := strings.ToLower(src)
		if strings.Contains(lower, "delimiter") || strings.Contains(lower, "+goose") {
			return // the client commands and annotations are not in the statements' text
		}
		var texts []string
		for _, s := range st {
			if re := separatorLine[dialect]; s.pgErr != nil || dialect == Oracle && strings.HasPrefix(s.Text, "/") || re != nil && re.MatchString(s.Text) {
				// psql's rule on a statement PostgreSQL refuses (an open
				// parenthesis), or a statement that is only the separator's
				// word ("/;", "GO;"), need not survive being put on its own line
				return
			}
			texts = append(texts, s.Text)
		}
		if n := len(texts); n > 0 {
			// The last statement may end with the input inside an open BEGIN:
			// alone it is still itself, but a terminator after it is held.
			alone, _ := Texts(dialect, texts[n-1])
			ended, _ := Texts(dialect, texts[n-1]+joiners[dialect]) // MySQL: "--" ends a text as a comment, not before ";"
			if !reflect.DeepEqual(alone, texts[n-1:]) && !reflect.DeepEqual(ended, texts[n-1:]) {
				t.Fatalf("%s: %q alone splits into %q, terminated into %q", dialect, texts[n-1], alone, ended)
			}
			texts = texts[:n-1]
		}
		again, err := Texts(dialect, strings.Join(texts, joiners[dialect])+joiners[dialect])
		if err != nil || !reflect.DeepEqual(again, texts) && len(texts) > 0 {
			t.Fatalf("%s: %q joined and split again gives %q (%v)", dialect, texts, again, err)
		}
		if dialect != Postgres || strings.Contains(lower, "begin") || strings.Contains(lower, "case") || strings.Contains(lower, "end") {
			return
		}
		if tree, err := pgParse(src); err == nil {
			toks, _ := lex(pgRules, src)
			if lexed := splitPsql(src, toks); len(lexed) != len(tree.Stmts) {
				t.Fatalf("psql's rule cuts %q into %d statements, PostgreSQL's parser into %d", src, len(lexed), len(tree.Stmts))
			}
		}
	})
}
