// Package check is `writeamp check`: measure a workload, apply a migration,
// measure again, and hold the difference against budgets. It also warns,
// before anything runs, when a migration indexes a column the workload
// updates (on PostgreSQL that turns HOT updates into non-HOT ones; on
// MySQL/MariaDB each such update also rewrites an index entry).
package check

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/writeamp/writeamp/internal/safeio"
	"github.com/writeamp/writeamp/sqlparse"
)

// File is one SQL file. Its statements are read once the server's dialect
// is known (Split), with that dialect's rules.
type File struct {
	Path string
	Flag string // the flag that named it, for errors
	Text string
	// Statements are what is applied: the whole file, or a goose file's
	// "-- +goose Up" section.
	Statements []sqlparse.Statement
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
			out = append(out, File{Path: n, Flag: flag, Text: string(data)})
		}
	}
	return out, nil
}

// Split reads every file's statements with the dialect's rules (see
// package sqlparse); an error names the flag, the file and the line.
func Split(dialect string, files []File) error {
	for i := range files {
		if files[i].Statements != nil {
			continue // already read
		}
		st, err := sqlparse.Split(dialect, files[i].Text)
		if err != nil {
			return fmt.Errorf("%s %s: %w", files[i].Flag, files[i].Path, err)
		}
		files[i].Statements = st
	}
	return nil
}
