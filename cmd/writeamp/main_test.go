package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// The tests that signal, kill or pipe the real writeamp share one build of
// it: a build takes tens of seconds on a loaded machine, and the package's
// tests must fit the suite's timeout.
var (
	binDir   string
	binOnce  sync.Once
	binError error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "writeamp-test-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildBinary builds the real writeamp once for the tests that signal or
// pipe it, and returns its path.
func buildBinary(t *testing.T) string {
	t.Helper()
	testenv.Heavy(t, "builds writeamp")
	bin := filepath.Join(binDir, "writeamp")
	binOnce.Do(func() {
		if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
			binError = fmt.Errorf("build: %w\n%s", err, out)
		}
	})
	if binError != nil {
		t.Fatal(binError)
	}
	return bin
}
