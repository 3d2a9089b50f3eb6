package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/writeamp/writeamp/internal/testing/workloadtest/demo"
)

// binaryRoot is the command tree of the writeamp binary: the root with the
// help and completion commands Execute adds, without the demo workload
// that only this package's tests link in (second_workload_*_test.go).
func binaryRoot() *cobra.Command {
	root := newRoot()
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "run" {
			continue
		}
		for _, sub := range c.Commands() {
			if sub.Name() == demo.Name {
				c.RemoveCommand(sub)
			}
		}
	}
	return root
}

// visiblePaths are the argument paths of every command `writeamp --help`
// and its subcommands' help list (hidden ones such as gen left out).
func visiblePaths(c *cobra.Command, path []string) [][]string {
	out := [][]string{path}
	for _, sub := range c.Commands() {
		if !sub.IsAvailableCommand() && !sub.IsAdditionalHelpTopicCommand() {
			continue
		}
		out = append(out, visiblePaths(sub, append(slices.Clone(path), sub.Name()))...)
	}
	return out
}

// Every command's help fits a screen above its flags and a terminal's
// width: the detail lives in docs/cli and the docs/ pages each help names.
func TestHelpIsShortAndNarrow(t *testing.T) {
	t.Parallel()
	const maxAbove, maxWidth = 30, 120
	paths := visiblePaths(binaryRoot(), nil)
	if len(paths) < 12 {
		t.Fatalf("only %d commands found", len(paths))
	}
	for _, p := range paths {
		name := strings.TrimSpace("writeamp " + strings.Join(p, " "))
		out, _, err := run(t, append(p, "--help")...)
		if err != nil {
			t.Errorf("%s --help: %v", name, err)
			continue
		}
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		above := slices.Index(lines, "Flags:")
		if above < 0 {
			t.Errorf("%s --help has no Flags: section:\n%s", name, out)
			continue
		}
		if above > maxAbove {
			t.Errorf("%s --help: %d lines above Flags:, at most %d", name, above, maxAbove)
		}
		for i, l := range lines {
			if w := utf8.RuneCountInString(l); w > maxWidth {
				t.Errorf("%s --help line %d is %d columns wide (at most %d): %s", name, i+1, w, maxWidth, l)
			}
		}
		cobras := len(p) > 0 && (p[0] == "help" || p[0] == "completion") // cobra's own texts
		if !cobras && !strings.Contains(out, "Reference: docs/cli/") {
			t.Errorf("%s --help does not point to its docs/cli page", name)
		}
	}
}

// docs/cli is what `make docs` generates from the commands; a help text
// changed without regenerating it fails here, naming the page.
func TestDocsCLIIsCurrent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := genMarkdown(binaryRoot(), dir); err != nil {
		t.Fatal(err)
	}
	committed := filepath.Join("..", "..", "docs", "cli")
	want := pages(t, dir)
	got := pages(t, committed)
	if len(want) < 12 {
		t.Fatalf("only %d pages generated", len(want))
	}
	for name, page := range want {
		old, ok := got[name]
		switch {
		case !ok:
			t.Errorf("docs/cli is stale: run make docs (%s is missing)", name)
		case old != page:
			t.Errorf("docs/cli is stale: run make docs (%s differs)", name)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("docs/cli is stale: run make docs (%s has no command)", name)
		}
	}
	// The index links every command's page, and every link resolves.
	for name, page := range want {
		for _, l := range strings.Split(page, "](")[1:] {
			target := l[:strings.IndexByte(l, ')')]
			if _, ok := want[target]; !ok {
				t.Errorf("%s links %s, which is not a page of docs/cli", name, target)
			}
		}
	}
}

// pages reads the Markdown files of dir by name.
func pages(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("docs/cli is stale: run make docs (%v)", err)
	}
	out := map[string]string{}
	for _, e := range entries {
		if e.IsDir() || filepath.Ext(e.Name()) != ".md" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}
