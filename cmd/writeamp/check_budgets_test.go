package main

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// A budget that cannot mean what it says, and no budget at all, are
// refused before anything connects: exit 2 at once against a port nothing
// answers, and nothing in the output reads like a connection error.
func TestCheckRefusesBadBudgetsBeforeConnecting(t *testing.T) {
	t.Parallel()
	m := write(t, t.TempDir(), "m.sql", "create index acct_status on accounts (status);")
	for _, c := range []struct {
		budgets []string
		want    string
	}{
		{[]string{"--budget", "hot_ratio>=90"}, "write 0.9"},
		{[]string{"--budget", "log_bytes/op<=+50"}, "+50B"},
		{[]string{"--budget", "hot_ratio>=0.9", "--budget", "hot_ratio[jobs]>=-5"}, "-0.05"},
		{nil, "--report-only"},
	} {
		args := append([]string{"check", "-q", "--dsn", closedPG, "--migration", m}, c.budgets...)
		t0 := time.Now()
		out, stderr, err := run(t, append(args, "--", "true")...)
		took := time.Since(t0)
		text := out + stderr
		if err != nil {
			text += err.Error()
		}
		if exitCode(err) != 2 || !strings.Contains(text, c.want) || took > 3*time.Second {
			t.Errorf("%v: exit %d in %v, %q; want 2 at once, saying %q", c.budgets, exitCode(err), took, text, c.want)
		}
		if l := strings.ToLower(text); strings.Contains(l, "connect") || strings.Contains(l, "refused") {
			t.Errorf("%v: reads like a connection attempt: %s", c.budgets, text)
		}
	}
}

// --print-config shows the workload command with its secrets masked: an
// env assignment, a URL's password, a conninfo password (the Action echoes
// it to the job's log).
func TestPrintConfigMasksTheWorkloadsSecrets(t *testing.T) {
	t.Chdir(t.TempDir()) // no writeamp.yaml found
	m := write(t, ".", "m.sql", "select 1;")
	out, stderr, err := run(t, "check", "--migration", m, "--budget", "hot_ratio>=0.9", "--print-config", "--",
		"env", "PGPASSWORD=AccPwOne1", "API_TOKEN=AccTok3", "psql", "postgres://u:AccPwTwo2@127.0.0.1:5432/app", "-Xq", "-f", "w.sql",
		"host=db password=AccPwFour4 dbname=app")
	if err != nil {
		t.Fatalf("%v %s", err, stderr)
	}
	for _, secret := range []string{"AccPwOne1", "AccPwTwo2", "AccTok3", "AccPwFour4"} {
		if strings.Contains(out+stderr, secret) {
			t.Errorf("--print-config printed %s:\n%s", secret, out)
		}
	}
	for _, kept := range []string{"PGPASSWORD=xxxxx", "postgres://u:xxxxx@127.0.0.1:5432/app", "w.sql", "- budget: hot_ratio>=0.9"} {
		if !strings.Contains(out, kept) {
			t.Errorf("--print-config lost %q:\n%s", kept, out)
		}
	}
}

// A misspelled table in a budget fails right after connecting, before the
// workload runs (it would sleep 20 s), suggesting the table meant.
func TestCheckBudgetObjectTypoFailsBeforeTheWorkload(t *testing.T) {
	if testing.Short() {
		t.Skip("needs PostgreSQL")
	}
	t.Parallel()
	dsn := scratchDB(t, "wa_budget_typo")
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("create table accounts (id int primary key, v int, status text); create table orders (id int primary key, note text)"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	m := write(t, dir, "m.sql", "create index acct_status on accounts (status);")
	psql := testenv.Tool(t, "psql")
	t0 := time.Now()
	out, stderr, err := run(t, "check", "-q", "--dsn", dsn, "--migration", m, "--budget", "hot_ratio[acounts]>=0.9",
		"--", psql, dsn, "-XAtqc", "select pg_sleep(20)")
	took := time.Since(t0)
	text := out + stderr
	if err != nil {
		text += err.Error()
	}
	if exitCode(err) != 2 || took > 15*time.Second || !strings.Contains(text, `"acounts"`) || !strings.Contains(text, "did you mean accounts?") {
		t.Fatalf("exit %d after %v: %s; want 2 before the workload, suggesting accounts", exitCode(err), took, text)
	}
	var n int
	if err := db.QueryRow("select count(*) from pg_indexes where indexname = 'acct_status'").Scan(&n); err != nil || n != 0 {
		t.Errorf("the migration ran before the budget was refused: %d %v", n, err)
	}
	// The index the migration creates is not in the catalog yet: a budget
	// on it is no typo.
	if _, _, err := run(t, "check", "-q", "--dsn", dsn, "--migration", filepath.Join(dir, "m.sql"), "--budget", "leaf_inserts/op[acct_statu]<=+0%",
		"--", psql, dsn, "-XAtqc", "select 1"); exitCode(err) != 2 || !strings.Contains(err.Error(), "did you mean acct_status") && !strings.Contains(err.Error(), "accounts") {
		t.Errorf("a typo of the new index: %v", err)
	}
}
