// Package check is `writeamp check`: measure a workload, apply a migration,
// measure again, and hold the difference against budgets. It also warns,
// before anything runs, when a migration indexes a column the workload
// updates (on PostgreSQL that turns HOT updates into non-HOT ones).
package check

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/writeamp/writeamp/internal/safeio"
)

// File is one SQL file split into statements.
type File struct {
	Path       string
	Statements []string
}

// LoadFiles reads SQL files in the order given; a directory contributes its
// *.sql files in name order, skipping *.down.sql (goose/migrate style "down"
// migrations).
func LoadFiles(flag string, paths []string) ([]File, error) {
	var out []File
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", flag, err)
		}
		names := []string{p}
		if st.IsDir() {
			names = nil
			entries, err := os.ReadDir(p)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", flag, err)
			}
			for _, e := range entries {
				n := e.Name()
				if !e.IsDir() && strings.HasSuffix(strings.ToLower(n), ".sql") && !strings.HasSuffix(strings.ToLower(n), ".down.sql") {
					names = append(names, filepath.Join(p, n))
				}
			}
			sort.Strings(names)
			if len(names) == 0 {
				return nil, fmt.Errorf("%s: %s holds no *.sql files", flag, p)
			}
		}
		for _, n := range names {
			data, err := safeio.ReadFile(n, safeio.MaxInput)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", flag, err)
			}
			out = append(out, File{Path: n, Statements: Split(string(data))})
		}
	}
	return out, nil
}

// Split cuts SQL text into statements at semicolons outside quotes,
// identifiers, dollar-quoted bodies and comments. Statements keep their
// text; empty ones (and comment-only ones) are dropped.
func Split(sql string) []string {
	var out []string
	start := 0
	emit := func(end int) {
		s := strings.TrimSpace(sql[start:end])
		if s != "" && !onlyComments(s) {
			out = append(out, s)
		}
	}
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			i = skipQuoted(sql, i, c)
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-':
			for i < len(sql) && sql[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(sql) && sql[i+1] == '*':
			end := strings.Index(sql[i+2:], "*/")
			if end < 0 {
				i = len(sql)
			} else {
				i += end + 4
			}
		case c == '$':
			if tag, ok := dollarTag(sql[i:]); ok {
				end := strings.Index(sql[i+len(tag):], tag)
				if end < 0 {
					i = len(sql)
				} else {
					i += len(tag) + end + len(tag)
				}
			} else {
				i++
			}
		case c == ';':
			emit(i)
			i++
			start = i
		default:
			i++
		}
	}
	if start < len(sql) {
		emit(len(sql))
	}
	return out
}

func skipQuoted(s string, i int, q byte) int {
	i++
	for i < len(s) {
		if s[i] == q {
			if i+1 < len(s) && s[i+1] == q { // doubled quote
				i += 2
				continue
			}
			return i + 1
		}
		if s[i] == '\\' && q == '`' {
			i++
		}
		i++
	}
	return i
}

// dollarTag recognizes $$ or $tag$ at the start of s.
func dollarTag(s string) (string, bool) {
	for j := 1; j < len(s); j++ {
		c := s[j]
		if c == '$' {
			return s[:j+1], true
		}
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || (j > 1 && c >= '0' && c <= '9')) {
			return "", false
		}
	}
	return "", false
}

func onlyComments(s string) bool {
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimSpace(line)
		if t != "" && !strings.HasPrefix(t, "--") {
			if strings.HasPrefix(t, "/*") && strings.HasSuffix(t, "*/") {
				continue
			}
			return false
		}
	}
	return true
}
