package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// dialectNames are the registry names a generic package must not branch
// on: what differs by dialect is asked of the dialect (dialects.CheckOf,
// LogName, SchemasAreDatabases, QuoterOf, SchemaEntererOf …).
var dialectNames = []string{"postgres", "mysql", "sqlserver", "oracle"}

// namedOnPurpose are the files of generic packages that may name one
// dialect, each with why.
var namedOnPurpose = map[string]string{
	// check --clone is CREATE DATABASE … TEMPLATE, which only PostgreSQL
	// has: the mode itself is PostgreSQL's, and it refuses elsewhere.
	"check/clone.go":     "PostgreSQL's clone mode",
	"check/cloneleft.go": "PostgreSQL's clone mode",
}

// TestGenericPackagesNameNoDialect holds the generic packages to the
// dialect interfaces at the source: a string literal that is a dialect's
// name (a `s.Dialect == "mysql"` branch, a `case "postgres":`) fails,
// wherever it is.
func TestGenericPackagesNameNoDialect(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	for _, pkg := range generic {
		files, err := filepath.Glob(filepath.Join(root, pkg, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", pkg, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			rel := pkg + "/" + filepath.Base(f)
			if _, ok := namedOnPurpose[rel]; ok {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			fset := token.NewFileSet()
			file, err := parser.ParseFile(fset, f, src, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(file, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				if v, err := strconv.Unquote(lit.Value); err == nil && slices.Contains(dialectNames, v) {
					t.Errorf("%s:%d names the %s dialect: ask the dialect through its interfaces instead", rel, fset.Position(lit.Pos()).Line, v)
				}
				return true
			})
		}
	}
}
