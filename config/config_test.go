package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, text string) string {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const good = `dsn_env: APP_DSN
migration: [db/migrations]
workload: psql "$APP_DSN" -f db/workload.sql
repeat: 3
budgets:
  - budget: hot_ratio>=0.9
  - budget: log_bytes_in_scope/op<=+5%
    paths: ["db/migrations/*_jobs*.sql"]
  - budget: leaf_inserts/op<=+10%
    paths: ["*_sessions.sql"]
    advisory: true
allow:
  - rule: index-on-updated-column
    path: db/migrations/0003_*.sql
    reason: "touched is updated once per row, at creation"
`

func TestLoadAndBudgetsPerPath(t *testing.T) {
	dir := t.TempDir()
	f, err := Load(writeFile(t, filepath.Join(dir, "writeamp.yaml"), good))
	if err != nil {
		t.Fatal(err)
	}
	if f.DSNEnv != "APP_DSN" || f.Repeat != 3 || len(f.Allow) != 1 || f.Allow[0].Line != 13 || f.Budgets[2].Line != 9 {
		t.Fatalf("%+v", f)
	}
	m := filepath.Join(dir, "db", "migrations")
	enf, adv := f.BudgetsFor([]string{filepath.Join(m, "0002_jobs_index.sql")})
	if strings.Join(enf, " ") != "hot_ratio>=0.9 log_bytes_in_scope/op<=+5%" || len(adv) != 0 {
		t.Errorf("jobs migration: %v %v", enf, adv)
	}
	enf, adv = f.BudgetsFor([]string{filepath.Join(m, "0004_sessions.sql")})
	if strings.Join(enf, " ") != "hot_ratio>=0.9" || strings.Join(adv, " ") != "leaf_inserts/op<=+10%" {
		t.Errorf("sessions migration: %v %v", enf, adv)
	}
}

// Every mistake names the file and its line; unknown keys are errors, at
// the top level and inside entries.
func TestLoadRefusesWithTheLine(t *testing.T) {
	dir := t.TempDir()
	for text, want := range map[string]string{
		"repeat: 2\nbudget: hot_ratio>=0.9\n":                                        `writeamp.yaml:2: unknown key "budget" (known: dsn_env,`,
		"budgets:\n  - budget: hot_ratio>=0.9\n    advisroy: true\n":                 `writeamp.yaml:3: unknown key "advisroy" (known: budget, paths, advisory)`,
		"budgets:\n  - budget: hot_ratio>=0.9\n  - budget: hot_ratio=0.9\n":          "writeamp.yaml:3: budgets: ",
		"allow:\n  - rule: index-on-updated-column\n    path: db/*.sql\n":            "writeamp.yaml:2: allow: index-on-updated-column has no reason",
		"allow:\n  - {rule: hot, path: a.sql, reason: x}\n":                          `writeamp.yaml:2: allow: rule "hot" unknown`,
		"dsn_env: postgres://u:secret@db/app\n":                                      "dsn_env \"postgres://u:secret@db/app\": the name of an environment variable",
		"allow:\n  - rule: index-on-updated-column\n    path: \"\"\n    reason: x\n": "writeamp.yaml:2: allow: index-on-updated-column needs path",
	} {
		_, err := Load(writeFile(t, filepath.Join(dir, "writeamp.yaml"), text))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
	if f, err := Load(writeFile(t, filepath.Join(dir, "writeamp.yaml"), "")); err != nil || f.Repeat != 0 {
		t.Errorf("empty file: %v", err)
	}
}

// Find looks up from the working directory and stops at the repository root.
func TestFindStopsAtTheRepositoryRoot(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "writeamp.yaml"), good) // above the repository: not its config
	repo := filepath.Join(dir, "repo")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	sub := filepath.Join(repo, "db", "migrations")
	os.MkdirAll(sub, 0o755)
	if p, err := Find(sub); err != nil || p != "" {
		t.Errorf("found %q %v outside the repository", p, err)
	}
	want := writeFile(t, filepath.Join(repo, ".writeamp.yaml"), good)
	if p, err := Find(sub); err != nil || p != want {
		t.Errorf("found %q %v, want %s", p, err, want)
	}
}
