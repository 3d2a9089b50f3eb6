package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jedib0t/go-pretty/v6/table"
)

var testOrder = []string{"updates", "wal", "copy"}

func blockText(name, body string) string {
	return "<!-- bench:" + name + " -->\n" + body + "<!-- /bench:" + name + " -->\n"
}

// Writing one group's block leaves every other byte of the file as it was:
// the hand-written text and the other groups' blocks.
func TestWritingAGroupKeepsTheOtherBlocksByteForByte(t *testing.T) {
	before := "# Performance\n\nintro  with trailing spaces  \n\n## updates\n" +
		blockText("updates", "Measured long ago.\n\n| row | a |\n|---|---|\n| x \\| y | 1 |\n") +
		"\nhand-written <!-- bench:copy --> mentioned inside a line\n\n" +
		blockText("wal", "wal's old figures\n") + "\n## copy\n" +
		blockText("copy", "copy's old figures\n") + "tail without newline"
	dir := t.TempDir()
	path := filepath.Join(dir, "performance.md")
	if err := os.WriteFile(path, []byte(before), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := writeDoc(path, testOrder, map[string]string{"wal": "wal's new figures\nsecond line\n"}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(before, "wal's old figures\n", "wal's new figures\nsecond line\n", 1)
	if string(got) != want {
		t.Errorf("file after writing wal's block:\n%s\nwant:\n%s", got, want)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want the file's own 0640", st.Mode().Perm())
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".bench-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// A group without a block gets one where the groups' order puts it: after
// the nearest earlier group's block, or before the nearest later one's;
// groups never measured get the placeholder.
func TestMissingBlocksAreAddedInTheGroupsOrder(t *testing.T) {
	doc := "# P\n\n" + blockText("wal", "wal\n") + "\nend\n"
	got, err := setBlocks(doc, testOrder, map[string]string{"copy": "copy rows\n"})
	if err != nil {
		t.Fatal(err)
	}
	want := "# P\n\n" + blockText("updates", notMeasured("updates")) + "\n" + blockText("wal", "wal\n") + "\n" + blockText("copy", "copy rows\n") + "\nend\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	// An empty (or missing) file becomes every block, in order.
	got, err = setBlocks("", testOrder, map[string]string{"wal": "wal\n"})
	if err != nil {
		t.Fatal(err)
	}
	want = blockText("updates", notMeasured("updates")) + "\n" + blockText("wal", "wal\n") + "\n" + blockText("copy", notMeasured("copy"))
	if got != want {
		t.Errorf("from nothing got:\n%s\nwant:\n%s", got, want)
	}
	// Written again, a complete file does not move.
	again, err := setBlocks(got, testOrder, map[string]string{"wal": "wal\n"})
	if err != nil || again != got {
		t.Errorf("rewriting the same block changed the file (%v):\n%s", err, again)
	}
}

func TestGroupNeverMeasuredSaysHowToMeasureIt(t *testing.T) {
	want := "not measured yet: make bench (or go run ./cmd/writeamp-bench -only copy)\n"
	if got := notMeasured("copy"); got != want {
		t.Errorf("placeholder %q, want %q", got, want)
	}
	// The file the bench ships with: every group has its block.
	doc, err := os.ReadFile("../../docs/performance.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := parseBlocks(string(doc), groupNames())
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != len(groupNames()) {
		t.Errorf("docs/performance.md has %d blocks, want one per group (%v)", len(blocks), groupNames())
	}
	for i, b := range blocks {
		if b.group != groupNames()[i] {
			t.Errorf("block %d is %s, want %s (the groups' order)", i, b.group, groupNames()[i])
		}
	}
}

// Broken markers are an error and the file is left as it was.
func TestMalformedMarkersLeaveTheFileUntouched(t *testing.T) {
	for name, doc := range map[string]string{
		"not closed":    "<!-- bench:wal -->\nrows\n",
		"closed twice":  blockText("wal", "") + "<!-- /bench:wal -->\n",
		"nested":        "<!-- bench:wal -->\n" + blockText("copy", "") + "<!-- /bench:wal -->\n",
		"crossed":       "<!-- bench:wal -->\n<!-- /bench:copy -->\n",
		"repeated":      blockText("wal", "a\n") + blockText("wal", "b\n"),
		"unknown group": blockText("walrus", ""),
		"misspelled":    "<!-- bench: wal -->\n<!-- /bench:wal -->\n",
		"no closing":    "<!-- bench:wal\n<!-- /bench:wal -->\n",
	} {
		path := filepath.Join(t.TempDir(), "performance.md")
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		err := writeDoc(path, testOrder, map[string]string{"wal": "new\n"})
		if err == nil {
			t.Errorf("%s: no error", name)
		}
		if got, _ := os.ReadFile(path); string(got) != doc {
			t.Errorf("%s: file changed to:\n%s", name, got)
		}
	}
}

// A group's block says when, on what and how it was measured, and its
// rows as cells (a | in a row is escaped, not a new cell).
func TestBlockHasItsMeasurementLineAndRows(t *testing.T) {
	m := measured{group: "copy", at: time.Date(2026, 12, 8, 9, 5, 0, 0, time.UTC), took: 72 * time.Second,
		server: "PostgreSQL 15.20", cores: 2, load0: "1.50", load1: "2.25",
		command: "go run ./cmd/writeamp-bench -only copy -copy-size 200MiB", sizes: "-copy-size 200MiB -copy-reps 5",
		rows: []benchRow{{What: "copy via pg_dump | pg_restore", Writeamp: "1.0 s", Peer: "by hand 1.1 s", Ratio: "0.909", Spread: "pairs 0.850–1.000", Target: "<= 1.2", Verdict: "met"}}}
	want := "Measured 2026-12-08 09:05 UTC on PostgreSQL 15.20, 2 cores, load average 1.50 at the start and 2.25 at the end (1 min), by `go run ./cmd/writeamp-bench -only copy -copy-size 200MiB` (this group's sizes: `-copy-size 200MiB -copy-reps 5`), in 1 min 12 s.\n\n" +
		"| row | writeamp | peer | ratio | target | verdict |\n|---|---|---|---|---|---|\n" +
		"| copy via pg_dump \\| pg_restore | 1.0 s | by hand 1.1 s | 0.909 (pairs 0.850–1.000) | <= 1.2 | met |\n"
	if got := renderBlock(m); got != want {
		t.Errorf("block:\n%s\nwant:\n%s", got, want)
	}
}

// The rows kept for the file carry the pairs' spread and the verdict the
// table prints.
func TestRowsKeepSpreadAndVerdict(t *testing.T) {
	stderr := os.Stderr
	os.Stderr, _ = os.Open(os.DevNull)
	defer func() { os.Stderr = stderr }()
	p := &progressTable{Writer: table.NewWriter()}
	p.AppendSpreadRow(table.Row{"pairs", "1 s", "1 s", "1.000", "<= 1.2"}, []float64{0.9, 1.0, 1.1})
	p.AppendSpreadRow(table.Row{"one pair", "1 s", "1 s", "1.300", "<= 1.2"}, []float64{1.3})
	p.AppendNoisyRow(table.Row{"straddles", "", "", "0.955", ">= 0.98"}, 0.85, 1.02)
	want := []benchRow{
		{What: "pairs", Writeamp: "1 s", Peer: "1 s", Ratio: "1.000", Spread: "pairs 0.900–1.100", Target: "<= 1.2", Verdict: "met"},
		{What: "one pair", Writeamp: "1 s", Peer: "1 s", Ratio: "1.300", Target: "<= 1.2", Verdict: "missed"},
		{What: "straddles", Ratio: "0.955", Spread: "pairs 0.850–1.020", Target: ">= 0.98", Verdict: "undecided: the pairs straddle the target"},
	}
	if len(p.rows) != len(want) {
		t.Fatalf("rows %+v", p.rows)
	}
	for i := range want {
		if p.rows[i] != want[i] {
			t.Errorf("row %d %+v, want %+v", i, p.rows[i], want[i])
		}
	}
}
