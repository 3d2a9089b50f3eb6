package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/check/sqlfile"
	"github.com/writeamp/writeamp/sqlparse"
)

// An inline suppression silences the warning of the statement below it,
// and only that one: the other file's index is still shown.
func TestSuppressSilencesTheStatementBelow(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "0002_touched.sql"), []byte("-- add an index\n\ncreate index jobs_touched on jobs (touched);\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "0003_note.sql"), []byte("alter table jobs add column note text;\n-- writeamp:allow index-on-updated-column reason: note is written once, at insert\ncreate index jobs_note on jobs (note);\n"), 0o644)
	files, err := sqlfile.Load("--migration", []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := sqlfile.Split(sqlparse.Postgres, files); err != nil {
		t.Fatal(err)
	}
	sups, err := InlineSuppressions(files)
	if err != nil || len(sups) != 1 || sups[0].Line != 2 {
		t.Fatalf("suppressions %+v %v", sups, err)
	}
	idx, _ := IndexesIn(sqlparse.Postgres, files)
	ups := []Update{{Table: "jobs", Columns: []string{"note", "touched"}, Example: "update jobs set touched = touched + 1", Source: "w.sql"}}
	shown, silenced := suppress(Warn(sqlparse.Postgres, idx, ups), sups, files)
	if len(shown) != 1 || shown[0].Index != "jobs_touched" || shown[0].Suppressed != nil ||
		len(silenced) != 1 || silenced[0].Index != "jobs_note" || silenced[0].Suppressed == nil || silenced[0].Suppressed.Reason != "note is written once, at insert" {
		t.Fatalf("shown %+v silenced %+v", shown, silenced)
	}
}

func TestInlineSuppressionNeedsAReasonAndAKnownRule(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]string{
		"-- writeamp:allow index-on-updated-column\ncreate index i on t (c);\n":            "0003_noreason.sql:1: -- writeamp:allow index-on-updated-column has no reason",
		"create index i on t (c);\n-- writeamp:allow index-on-updated-column reason:   \n": "0003_noreason.sql:2: -- writeamp:allow index-on-updated-column has no reason",
		"--writeamp:allow hot-ratio reason: fine\n":                                        "0003_noreason.sql:1: -- writeamp:allow hot-ratio: unknown rule (known: index-on-updated-column)",
		"select 1; -- writeamp:allow\n":                                                    "0003_noreason.sql:1: -- writeamp:allow names no rule",
		"-- writeamp:allow index-on-updated-column budget-exceeded reason: x\n":            "0003_noreason.sql:1: -- writeamp:allow index-on-updated-column budget-exceeded: one rule per comment",
	} {
		_, err := InlineSuppressions([]sqlfile.File{{Path: "db/0003_noreason.sql", Text: text}})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", text, err, want)
		}
	}
	s, err := InlineSuppressions([]sqlfile.File{{Path: "a.sql", Text: "select 1;\r\n  -- writeamp:allow index-on-updated-column reason: written once\r\n"}})
	if err != nil || len(s) != 1 || s[0] != (Suppression{Rule: RuleIndexOnUpdatedColumn, Reason: "written once", Path: "a.sql", Line: 2, Inline: true}) {
		t.Errorf("suppression %+v %v", s, err)
	}
}
