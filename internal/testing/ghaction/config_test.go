package ghaction

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// The Action reads writeamp.yaml: budgets, migration and dsn_env may come
// from it instead of inputs, and a run where neither gives them stops
// before anything connects (a gate without budgets would pass every
// migration), exit 2 with the reason in the log and the summary; advisory
// mode lets even that pass, saying so. No database: the runs that get past
// the settings fail to connect (a closed port), which check says as its
// own exit 2.
func TestActionReadsTheConfig(t *testing.T) {
	testenv.Heavy(t, "builds writeamp")
	work := t.TempDir()
	os.MkdirAll(filepath.Join(work, ".git"), 0o755) // the repository root: the search for the file stops here
	os.MkdirAll(filepath.Join(work, "db"), 0o755)
	os.WriteFile(filepath.Join(work, "db", "0002_touched.sql"), []byte("create index jobs_touched on jobs (touched);\n"), 0o644)
	conf := func(text string) {
		if err := os.WriteFile(filepath.Join(work, "writeamp.yaml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	closed := "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=2"
	t.Setenv("APP_DSN", closed)
	for _, c := range []struct {
		name, config string
		inputs       map[string]string
		code         int
		want         []string
	}{
		{"nothing gives budgets", "", map[string]string{"dsn": closed, "migration": "db"}, 2,
			[]string{"::error title=writeamp check::no budgets: give input budgets", "(config: (none))"}},
		{"advisory: even that passes", "", map[string]string{"dsn": closed, "migration": "db", "fail-on": "never", "comment": "never"}, 0,
			[]string{"no budgets: give input budgets"}},
		{"the file gives budgets, nothing the migration", "budgets:\n  - budget: hot_ratio>=0.9\n", map[string]string{"dsn": closed}, 2,
			[]string{"no migration: give input migration", "(config: " + filepath.Join(work, "writeamp.yaml") + ")"}},
		{"no dsn, no dsn_env", "migration: [db]\nbudgets:\n  - budget: hot_ratio>=0.9\n", map[string]string{}, 2,
			[]string{"input dsn is required unless the config file names dsn_env"}},
		{"a suppression without a reason", "migration: [db]\nbudgets:\n  - budget: hot_ratio>=0.9\nallow:\n  - rule: index-on-updated-column\n    path: db/*.sql\n", map[string]string{"dsn": closed}, 2,
			[]string{"are not valid: ", "writeamp.yaml:5: allow: index-on-updated-column has no reason"}},
		{"everything from the file", "dsn_env: APP_DSN\nmigration: [db]\nbudgets:\n  - budget: hot_ratio>=0.9\n  - budget: leaf_inserts/op<=+10%\n    advisory: true\n", map[string]string{}, 2,
			[]string{"dsn: $APP_DSN (dsn_env)", "  - budget: hot_ratio>=0.9", "    advisory: true", "could not measure (exit 2)"}},
		{"inputs replace the file's budgets", "dsn_env: APP_DSN\nmigration: [db]\nbudgets:\n  - budget: hot_ratio>=0.9\n", map[string]string{"budgets": "log_bytes/op<=2KiB"}, 2,
			[]string{"  - budget: log_bytes/op<=2KiB", "could not measure (exit 2)"}},
	} {
		conf(c.config)
		if c.config == "" {
			os.Remove(filepath.Join(work, "writeamp.yaml"))
		}
		code, out, outputs, summary := runAction(t, work, c.inputs)
		if code != c.code || outputs["exit-code"] != "2" || outputs["verdict"] != "error" {
			t.Errorf("%s: exit %d, outputs %v, want exit %d and exit-code 2\n%.3000s", c.name, code, outputs, c.code, out)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: the log lacks %q\n%.3000s", c.name, w, out)
			}
		}
		if strings.Contains(out, "hot_ratio>=0.9") && c.inputs["budgets"] != "" {
			t.Errorf("%s: the input budgets did not replace the file's\n%.3000s", c.name, out)
		}
		if c.code == 0 && !strings.Contains(summary, "Advisory (fail-on: never): writeamp check exited 2") {
			t.Errorf("%s: summary %q", c.name, summary)
		}
	}
}
