package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// A migration repository with a config file: check run from a
// subdirectory finds it, reads the DSN from the variable it names, runs its
// workload, and its advisory HOT budget fails without failing the check;
// the config's allow silences the static warning with its reason. The
// workload is measured on copies of the database: it reaches them through
// WRITEAMP_CHECK_DSN (falling back to the config's variable outside check),
// as the database itself never gets --schema.
func TestCheckReadsTheRepositoryConfig(t *testing.T) {
	testenv.Tool(t, "psql")
	repo := t.TempDir()
	os.Mkdir(filepath.Join(repo, ".git"), 0o755)
	os.MkdirAll(filepath.Join(repo, "db", "migrations"), 0o755)
	dsn := scratchDB(t, "wa_test_check_config")
	t.Setenv("APP_TEST_DSN", dsn)
	t.Setenv("GITHUB_ACTIONS", "true")
	t.Setenv("GITHUB_WORKSPACE", repo)
	write(t, repo, "db/base.sql", "create table jobs (id int primary key, touched int) with (fillfactor = 50);\ninsert into jobs select g, 0 from generate_series(1, 400) g;\n")
	write(t, repo, "db/w.sql", "update jobs set touched = touched + 1 where id <= 300;\n")
	write(t, repo, "db/migrations/0002_touched.sql", "-- add an index\n\ncreate index jobs_touched on jobs (touched);\n")
	write(t, repo, "writeamp.yaml", `dsn_env: APP_TEST_DSN
migration: [db/migrations]
schema: [db/base.sql]
workload: psql "$APP_TEST_DSN" -XAtq -v ON_ERROR_STOP=1 -f db/w.sql
budgets:
  - budget: hot_ratio[jobs]>=0.9
    paths: [db/migrations/*_touched.sql]
    advisory: true
  - budget: hot_ratio[jobs]>=0.9
    paths: [db/migrations/9999_*.sql]
allow:
  - rule: index-on-updated-column
    path: db/migrations/0002_*.sql
    reason: touched is a test column
`)
	t.Chdir(filepath.Join(repo, "db")) // found from a subdirectory
	out, _, err := run(t, "check", "--print-config")
	if err != nil || !strings.Contains(out, "config: "+filepath.Join(repo, "writeamp.yaml")) || strings.Contains(out, dsn) ||
		!strings.Contains(out, "- budget: hot_ratio[jobs]>=0.9\n    advisory: true") || strings.Contains(out, "9999") ||
		!strings.Contains(out, "reason: touched is a test column") {
		t.Fatalf("--print-config (%v):\n%s", err, out)
	}
	flagged, _, err := run(t, "check", "--print-config", "--budget", "log_bytes/op<=+5%", "--repeat", "2")
	if err != nil || !strings.Contains(flagged, "- budget: log_bytes/op<=+5%\n    advisory: false") || strings.Contains(flagged, "hot_ratio") || !strings.Contains(flagged, "repeat: 2") {
		t.Fatalf("flags do not override the file (%v):\n%s", err, flagged)
	}
	t.Chdir(repo) // the workload names db/w.sql from the root
	sarif := filepath.Join(repo, "r.sarif")
	out, stderr, err := run(t, "check", "--sarif", sarif)
	if exitCode(err) != 0 {
		t.Fatalf("advisory budget: exit %d (%v), want 0\n%s%s", exitCode(err), err, out, stderr)
	}
	for _, want := range []string{"(advisory: does not fail the check)", "::warning file=db/migrations/0002_touched.sql,line=3,title=writeamp budget exceeded"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "covers jobs.touched") {
		t.Errorf("the allowed warning was annotated:\n%s", out)
	}
	data, _ := os.ReadFile(sarif)
	if !strings.Contains(string(data), `"kind": "external",`) || !strings.Contains(string(data), `"justification": "touched is a test column"`) {
		t.Errorf("SARIF lacks the external suppression:\n%s", data)
	}
}

func TestCheckConfigErrorsNameTheLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := write(t, dir, "w.yaml", "budgets:\n  - budget: hot_ratio>=0.9\n    fail: true\n")
	_, _, err := run(t, "check", "--config", cfg, "--migration", cfg, "--dsn", closedPG)
	if exitCode(err) != 2 || !strings.Contains(err.Error(), cfg+`:3: unknown key "fail"`) {
		t.Fatalf("exit %d: %v", exitCode(err), err)
	}
	cfg = write(t, dir, "d.yaml", "dsn_env: WA_TEST_UNSET_DSN\n")
	_, _, err = run(t, "check", "--config", cfg, "--migration", cfg)
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "dsn_env WA_TEST_UNSET_DSN is not set") {
		t.Fatalf("exit %d: %v", exitCode(err), err)
	}
}
