package golden

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Update is -update: rewrite the golden files instead of comparing.
var Update = flag.Bool("update", false, "rewrite the golden files under testdata/ with what the tests produce")

// Dir is where golden files live, relative to the package under test.
const Dir = "testdata"

// Path is the golden file of a name.
func Path(name string) string { return filepath.Join(Dir, name) }

// Check compares got with testdata/name. With -update it writes got there
// first (creating testdata/), so the test then passes and `git diff` shows
// what changed for review.
func Check(t testing.TB, name string, got []byte) {
	t.Helper()
	path := Path(name)
	if *Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update in %s to create it, then review it)", err, mustWd())
	}
	if string(want) == string(got) {
		return
	}
	t.Errorf("%s differs from what the test produced (-want +got); if the change is intended, run go test -update in %s and review git diff:\n%s",
		path, mustWd(), Diff(string(want), string(got)))
}

// Diff is the line diff Check prints (-want +got): the files as lists of
// lines, so a change shows as whole lines (cmp diffs two similar strings
// byte by byte).
func Diff(want, got string) string {
	return cmp.Diff(strings.SplitAfter(want, "\n"), strings.SplitAfter(got, "\n"))
}

func mustWd() string {
	wd, err := os.Getwd()
	if err != nil {
		return "the package directory"
	}
	return wd
}
