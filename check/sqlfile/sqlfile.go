package sqlfile

import (
	"context"
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
	// Down is a goose file's "-- +goose Down" section: the file's own undo.
	Down []sqlparse.Statement
	// Applied counts the statements of the last apply that ran, so that
	// a migration that failed half-way is undone as far as it went.
	Applied int
}

// Load reads SQL files in the order given; a directory contributes its
// *.sql files in name order, skipping *.down.sql (goose/migrate style "down"
// migrations).
func Load(flag string, paths []string) ([]File, error) {
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

// LoadDown reads the files of --down in the order given; a directory
// contributes its *.down.sql files (its *.sql files when it has none) in
// reverse name order: the last migration is undone first, as
// golang-migrate's down does.
func LoadDown(flag string, paths []string) ([]File, error) {
	var out []File
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", flag, err)
		}
		if !st.IsDir() {
			fs, err := Load(flag, []string{p})
			if err != nil {
				return nil, err
			}
			out = append(out, fs...)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", flag, err)
		}
		var downs, all []string
		for _, e := range entries {
			n := strings.ToLower(e.Name())
			if e.IsDir() || !strings.HasSuffix(n, ".sql") {
				continue
			}
			all = append(all, filepath.Join(p, e.Name()))
			if strings.HasSuffix(n, ".down.sql") {
				downs = append(downs, filepath.Join(p, e.Name()))
			}
		}
		if len(downs) > 0 {
			all = downs
		}
		if len(all) == 0 {
			return nil, fmt.Errorf("%s: %s holds no *.sql files", flag, p)
		}
		sort.Sort(sort.Reverse(sort.StringSlice(all)))
		fs, err := Load(flag, all)
		if err != nil {
			return nil, err
		}
		out = append(out, fs...)
	}
	return out, nil
}

// SplitContext is Split that gives up when ctx ends: a large migration
// takes seconds to read, and Ctrl-C or SIGTERM must not wait for it
// (nothing has been applied yet, so there is nothing to undo; the reading
// goroutine ends with the process).
func SplitContext(ctx context.Context, dialect string, files []File) error {
	done := make(chan error, 1)
	// The goroutine reads copies, so files is not written after a give-up.
	work := append([]File(nil), files...)
	go func() { done <- Split(dialect, work) }()
	select {
	case err := <-done:
		copy(files, work)
		return err
	case <-ctx.Done():
		return fmt.Errorf("reading the SQL files: %w", context.Cause(ctx))
	}
}

// Split reads every file's statements with the dialect's rules (see
// package sqlparse); an error names the flag, the file and the line.
func Split(dialect string, files []File) error {
	for i := range files {
		if files[i].Statements != nil {
			continue // already read
		}
		sc, err := sqlparse.ParseScript(dialect, files[i].Text)
		if err != nil {
			return fmt.Errorf("%s %s: %w", files[i].Flag, files[i].Path, err)
		}
		files[i].Statements, files[i].Down = sc.Up, sc.Down
		if files[i].Statements == nil {
			files[i].Statements = []sqlparse.Statement{} // read, and empty
		}
	}
	return nil
}
