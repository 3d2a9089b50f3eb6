package sqlparse

import (
	"go/parser"
	gotoken "go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Every call into libpg_query goes through pgparser.go's turn-taking: a
// file anywhere in the module that imports go-pgquery itself would give
// each concurrent caller a module compiled again.
func TestOnlyPgparserCallsLibpgQuery(t *testing.T) {
	root := ".."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "bin" || d.Name() == "dist" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(gotoken.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if p == "github.com/wasilibs/go-pgquery" && filepath.ToSlash(path) != "../sqlparse/pgparser.go" {
				t.Errorf("%s imports go-pgquery: call sqlparse's pgParse/pgDeparse (or ParsePostgres) instead", path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Parses from many goroutines take turns and all succeed.
func TestConcurrentParsesTakeTurns(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tree, err := ParsePostgres("UPDATE t SET a = " + strconv.Itoa(i))
			if err == nil && len(tree.Stmts) != 1 {
				err = fs.ErrInvalid
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}
