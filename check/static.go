package check

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/writeamp/writeamp/internal/safeio"
)

// IndexDef is an index a migration creates, as far as the text tells.
type IndexDef struct {
	Name    string
	Table   string
	Columns []string // every column the index references: keys, expressions, INCLUDE, predicate
	Partial bool
	Method  string
	Source  string // file
}

// Update is a kind of UPDATE statement the workload runs.
type Update struct {
	Table   string
	Columns []string
	Example string // the statement (shortened)
	Source  string // file, or the statement name of a built-in workload
}

var (
	createIndexRe   = regexp.MustCompile(`(?is)^\s*create\s+(unique\s+)?index\s+(?:concurrently\s+)?(?:if\s+not\s+exists\s+)?((?:[\w$]+|"[^"]+")(?:\.(?:[\w$]+|"[^"]+"))?\s+)?on\s+(?:only\s+)?((?:[\w$]+|"[^"]+")(?:\.(?:[\w$]+|"[^"]+"))?)\s*(?:using\s+(\w+)\s*)?\(`)
	addConstraintRe = regexp.MustCompile(`(?is)^\s*alter\s+table\s+(?:if\s+exists\s+)?(?:only\s+)?((?:[\w$]+|"[^"]+")(?:\.(?:[\w$]+|"[^"]+"))?)\s+add\s+(?:constraint\s+((?:[\w$]+|"[^"]+"))\s+)?(?:unique|primary\s+key)\s*(?:nulls\s+(?:not\s+)?distinct\s*)?\(`)
	updateRe        = regexp.MustCompile(`(?is)\bupdate\s+(?:only\s+)?((?:[\w$]+|"[^"]+")(?:\.(?:[\w$]+|"[^"]+"))?)(?:\s+(?:as\s+)?[\w$]+)?\s+set\s+`)
	identRe         = regexp.MustCompile(`"[^"]+"|[A-Za-z_][\w$]*(?:\s*\()?`)
	stringLitRe     = regexp.MustCompile(`'(?:[^']|'')*'`)
)

// sqlWords are not column names.
var sqlWords = map[string]bool{"and": true, "or": true, "not": true, "is": true, "null": true, "true": true, "false": true,
	"in": true, "like": true, "ilike": true, "between": true, "asc": true, "desc": true, "nulls": true, "first": true,
	"last": true, "collate": true, "distinct": true, "any": true, "all": true, "some": true, "case": true, "when": true,
	"then": true, "else": true, "end": true, "cast": true, "as": true, "text": true, "int": true, "integer": true,
	"bigint": true, "date": true, "timestamp": true, "varchar": true, "boolean": true, "default": true, "where": true,
	"include": true, "with": true, "tablespace": true, "using": true, "current_date": true, "current_timestamp": true}

func unquote(id string) string {
	id = strings.TrimSpace(id)
	if strings.HasPrefix(id, `"`) && strings.HasSuffix(id, `"`) && len(id) >= 2 {
		return id[1 : len(id)-1]
	}
	return strings.ToLower(id)
}

// baseName is the unqualified, unquoted name.
func baseName(id string) string {
	id = strings.TrimSpace(id)
	inQuote, last := false, 0
	for i := 0; i < len(id); i++ {
		switch {
		case id[i] == '"':
			inQuote = !inQuote
		case id[i] == '.' && !inQuote:
			last = i + 1
		}
	}
	return unquote(id[last:])
}

// matchParen returns the index after the ')' closing the '(' before s[0].
func matchParen(s string) int {
	depth := 1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\'':
			i = skipQuoted(s, i, '\'') - 1
		case '"':
			i = skipQuoted(s, i, '"') - 1
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(s)
}

// columnsIn lists the identifiers of an expression that name columns (not
// functions, keywords or string literals).
func columnsIn(expr string) []string {
	expr = stringLitRe.ReplaceAllString(expr, "''")
	var out []string
	for _, m := range identRe.FindAllString(expr, -1) {
		if strings.HasSuffix(m, "(") {
			continue // a function call
		}
		c := unquote(m)
		if !sqlWords[strings.ToLower(c)] && !strings.HasSuffix(c, "_ops") {
			out = append(out, c)
		}
	}
	return dedupe(out)
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// IndexesIn finds the indexes the statements create: CREATE INDEX, and
// ALTER TABLE ... ADD [CONSTRAINT x] UNIQUE|PRIMARY KEY (...).
func IndexesIn(files []File) []IndexDef {
	var out []IndexDef
	for _, f := range files {
		for _, st := range f.Statements {
			st = stripComments(st)
			if m := createIndexRe.FindStringSubmatchIndex(st); m != nil {
				g := func(i int) string {
					if m[2*i] < 0 {
						return ""
					}
					return st[m[2*i]:m[2*i+1]]
				}
				rest := st[m[1]:]
				end := matchParen(rest)
				cols := columnsIn(rest[:max(end-1, 0)])
				tail := rest[end:]
				partial := false
				lt := strings.ToLower(tail)
				if i := strings.Index(lt, "include"); i >= 0 {
					if j := strings.Index(tail[i:], "("); j >= 0 {
						inc := tail[i+j+1:]
						cols = append(cols, columnsIn(inc[:max(matchParen(inc)-1, 0)])...)
					}
				}
				if i := regexp.MustCompile(`(?i)\bwhere\b`).FindStringIndex(tail); i != nil {
					partial = true
					cols = append(cols, columnsIn(tail[i[1]:])...)
				}
				name := baseName(g(2))
				if name == "" {
					name = "(unnamed index)"
				}
				out = append(out, IndexDef{Name: name, Table: baseName(g(3)), Columns: dedupe(cols), Partial: partial,
					Method: strings.ToLower(g(4)), Source: f.Path})
				continue
			}
			if m := addConstraintRe.FindStringSubmatchIndex(st); m != nil {
				rest := st[m[1]:]
				cols := columnsIn(rest[:max(matchParen(rest)-1, 0)])
				name := "(constraint index)"
				if m[4] >= 0 {
					name = baseName(st[m[4]:m[5]])
				}
				out = append(out, IndexDef{Name: name, Table: baseName(st[m[2]:m[3]]), Columns: cols, Source: f.Path})
			}
		}
	}
	return out
}

func stripComments(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		if i := strings.Index(line, "--"); i >= 0 && strings.Count(line[:i], "'")%2 == 0 {
			line = line[:i]
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return strings.TrimSpace(b.String())
}

// UpdatesIn finds the UPDATE statements of SQL text and the columns they set.
func UpdatesIn(text, source string) []Update {
	var out []Update
	seen := map[string]bool{}
	// Blank string literals out, keeping every offset, so text[i:j] is the original.
	clean := stringLitRe.ReplaceAllStringFunc(text, func(lit string) string { return "'" + strings.Repeat("_", len(lit)-2) + "'" })
	for _, m := range updateRe.FindAllStringSubmatchIndex(clean, -1) {
		table := baseName(clean[m[2]:m[3]])
		rest := clean[m[1]:]
		// The SET list ends at WHERE, FROM, RETURNING or the statement's end.
		end := len(rest)
		if i := regexp.MustCompile(`(?is)(\bwhere\b|\bfrom\b|\breturning\b|;)`).FindStringIndex(rest); i != nil {
			end = i[0]
		}
		var cols []string
		depth, startItem := 0, 0
		items := []string{}
		set := rest[:end]
		for i := 0; i < len(set); i++ {
			switch set[i] {
			case '(':
				depth++
			case ')':
				depth--
			case ',':
				if depth == 0 {
					items = append(items, set[startItem:i])
					startItem = i + 1
				}
			}
		}
		items = append(items, set[startItem:])
		for _, it := range items {
			lhs, _, ok := strings.Cut(it, "=")
			if !ok {
				continue
			}
			lhs = strings.Trim(strings.TrimSpace(lhs), "()")
			for _, c := range strings.Split(lhs, ",") {
				if c = baseName(c); c != "" {
					cols = append(cols, c)
				}
			}
		}
		if len(cols) == 0 {
			continue
		}
		sort.Strings(cols)
		k := table + "/" + strings.Join(cols, ",")
		if seen[k] {
			continue
		}
		seen[k] = true
		stmtEnd := len(clean)
		if i := strings.IndexByte(clean[m[0]:], ';'); i >= 0 {
			stmtEnd = m[0] + i
		}
		ex := strings.Join(strings.Fields(text[m[0]:stmtEnd]), " ")
		if len(ex) > 120 {
			ex = ex[:117] + "..."
		}
		out = append(out, Update{Table: table, Columns: cols, Example: ex, Source: source})
	}
	return out
}

// UpdatesOfCommand scans a wrapped command's arguments: SQL files it names
// (*.sql) and inline SQL (e.g. psql -c "UPDATE ..."). A heuristic: it sees
// only SQL that appears literally. A shell command line in one argument
// (bash -c 'psql "$DSN" -f work.sql', as the GitHub Action runs its
// workload input) is looked into word by word for the files it names.
func UpdatesOfCommand(args []string) []Update {
	var out []Update
	seen := map[string]bool{}
	file := func(a string) {
		if seen[a] {
			return
		}
		seen[a] = true
		// Only regular files: the command may name a FIFO or device it reads itself.
		if data, err := safeio.ReadFile(a, 64<<20); err == nil {
			out = append(out, UpdatesIn(string(data), a)...)
		}
	}
	isSQL := func(a string) bool { return strings.HasSuffix(strings.ToLower(a), ".sql") }
	for _, a := range args {
		if _, err := os.Stat(a); err == nil && isSQL(a) {
			file(a)
			continue
		}
		if strings.Contains(strings.ToLower(a), "update") {
			out = append(out, UpdatesIn(a, "the command line")...)
		}
		for _, w := range strings.Fields(a) {
			if _, v, ok := strings.Cut(w, "="); ok && isSQL(v) { // --file=work.sql
				w = v
			}
			if w = strings.Trim(w, `"'`); isSQL(w) {
				file(w)
			}
		}
	}
	return out
}

// Warning is one index that indexes a column the workload updates.
type Warning struct {
	Index, Table, Column, Statement, Source, IndexSource string
	Text                                                 string
}

// Warn pairs the migration's indexes with the workload's updates.
func Warn(dialect string, idx []IndexDef, ups []Update) []Warning {
	var out []Warning
	seen := map[string]bool{}
	for _, ix := range idx {
		for _, u := range ups {
			if !strings.EqualFold(ix.Table, u.Table) {
				continue
			}
			for _, c := range ix.Columns {
				k := strings.ToLower(ix.Name + "/" + ix.Table + "/" + c)
				if !containsFold(u.Columns, c) || seen[k] {
					continue
				}
				seen[k] = true
				w := Warning{Index: ix.Name, Table: ix.Table, Column: c, Statement: u.Example, Source: u.Source, IndexSource: ix.Source}
				var effect string
				switch {
				case dialect == "postgres" && ix.Method == "brin":
					effect = "on PostgreSQL 16+ a BRIN-only change stays HOT; on 13-15 those updates can no longer be HOT"
				case dialect == "postgres":
					effect = "on PostgreSQL those updates can no longer be HOT: each one adds an entry to every index of " + ix.Table
				default:
					effect = "each of those updates now also moves an entry in " + ix.Name + " (delete-mark and insert)"
				}
				w.Text = fmt.Sprintf("index %s (%s) on %s includes column %s, which the workload updates (%s, in %s): %s",
					ix.Name, ix.Source, ix.Table, c, u.Example, u.Source, effect)
				out = append(out, w)
			}
		}
	}
	return out
}

func containsFold(xs []string, s string) bool {
	for _, x := range xs {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
