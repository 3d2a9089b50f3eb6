package main

import (
	"database/sql"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/writeamp/writeamp/internal/testing/pgmatrix"
	"github.com/writeamp/writeamp/internal/testing/testenv"
	"github.com/writeamp/writeamp/result"
)

func exitCode(err error) int {
	var ec exitCoder
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	var ue usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	if err != nil {
		return exitFailed
	}
	return 0
}

// scratchDB creates a database of its own on the test server and returns its DSN.
func scratchDB(t *testing.T, name string) string {
	t.Helper()
	dsn := testenv.DSN(t, "WRITEAMP_TEST_PG_DSN")
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	testenv.Reachable(t, db, "PostgreSQL")
	name = fmt.Sprintf("%s_%d", name, os.Getpid())
	if _, err := db.Exec("DROP DATABASE IF EXISTS " + name); err != nil {
		t.Fatal(err)
	}
	// TEMPLATE template0: CREATE DATABASE from a template others are
	// connected to fails, and other tests' sessions come and go.
	if _, err := db.Exec("CREATE DATABASE " + name + " TEMPLATE template0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
		db.Close()
	})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("WRITEAMP_TEST_PG_DSN must be a URL for this test: %v", err)
	}
	u.Path = "/" + name
	return u.String()
}

// privateScratchDB is a database on a PostgreSQL 15 server of the test's
// own, as a URL: for the long checks that need nothing of the shared
// server, so they run beside its queue instead of holding it (each held it
// 20-40 s).
func privateScratchDB(t *testing.T, name string) string {
	dsn, _ := privateServer(t, name)
	return dsn
}

// privateServer is privateScratchDB with a connection to the server's
// maintenance database (closed when the test ends), for the tests that
// also watch what is created beside the scratch database.
func privateServer(t *testing.T, name string) (string, *sql.DB) {
	t.Helper()
	srv := pgmatrix.Start(t, 15)
	admin, err := sql.Open("pgx", srv.DSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	q := url.Values{"host": {srv.Dir}, "port": {fmt.Sprint(srv.Port)}, "sslmode": {"disable"}}
	return (&url.URL{Scheme: "postgres", User: url.User("postgres"), Path: "/" + name, RawQuery: q.Encode()}).String(), admin
}

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The two cases of the "Done means", with a wrapped psql workload:
// an index on the updated column loses HOT and fails; an unrelated partial
// index passes.
func TestCheckHOTGateWithACommand(t *testing.T) {
	psql := testenv.Tool(t, "psql")
	dir := t.TempDir()
	base := write(t, dir, "base.sql", `create table jobs (id int primary key, status text not null, note text, touched_at int not null default 0) with (fillfactor = 70);
insert into jobs select g, 'ready', 'x', 0 from generate_series(1, 500) g;`)
	var work strings.Builder
	for i := 1; i <= 500; i++ {
		fmt.Fprintf(&work, "update jobs set touched_at = touched_at + 1 where id = %d;\n", i)
	}
	workSQL := write(t, dir, "work.sql", work.String())
	bad := write(t, dir, "bad.sql", "create index jobs_touched on jobs(touched_at);")
	good := write(t, dir, "good.sql", "create index jobs_ready on jobs(id) where status = 'failed';")

	dsn := scratchDB(t, "wa_test_check_bad")
	junit := filepath.Join(dir, "bad.xml")
	saved := filepath.Join(dir, "bad.json")
	out, _, err := run(t, "check", "-q", "--dsn", dsn, "--schema", base, "--migration", bad, "--budget", "hot_ratio>=0.9",
		"--budget", "index_entries/op[jobs]<=+0%", "--junit", junit, "--result", saved, "--", psql, dsn, "-XAtq", "-v", "ON_ERROR_STOP=1", "-f", workSQL)
	if exitCode(err) != 1 {
		t.Fatalf("bad migration: exit %d (%v), want 1\n%s", exitCode(err), err, out)
	}
	for _, want := range []string{"index jobs_touched (", "includes column touched_at, which the workload updates (update jobs set touched_at = touched_at + 1 where id = 1",
		"hot_ratio>=0.9", "FAIL", "index jobs_touched on jobs was added by the migration"} {
		if !strings.Contains(out, want) {
			t.Errorf("bad migration output lacks %q:\n%s", want, out)
		}
	}
	r, err := result.Read(saved)
	if err != nil {
		t.Fatal(err)
	}
	before, after := r.Runs[0], r.Runs[1]
	if before.Label != "before" || after.Label != "after" {
		t.Fatalf("labels %q %q", before.Label, after.Label)
	}
	for _, run := range r.Runs {
		if v := run.Table("jobs").Metrics["rows_updated"].V(); v != 500 {
			t.Errorf("%s: rows_updated %v, want 500", run.Label, v)
		}
	}
	if v := before.Table("jobs").Metrics["hot_ratio"].V(); v < 0.9 {
		t.Errorf("before: hot_ratio %v, want >= 0.9 (fillfactor 70, one update per row)", v)
	}
	if v := after.Table("jobs").Metrics["hot_updates"].V(); v != 0 {
		t.Errorf("after: hot_updates %v, want 0 (touched_at is indexed)", v)
	}
	if ix := after.Index("jobs_touched"); ix == nil || ix.Metrics["leaf_inserts"].V() != 500 {
		t.Errorf("after: jobs_touched leaf inserts %+v, want 500", ix)
	}
	// The saved result leads with what changed: the new index and the lost HOT updates.
	var added, hot bool
	for _, f := range r.Findings {
		added = added || f.Kind == "added" && f.Object == "jobs_touched" && strings.Contains(f.Text, "is new in after")
		hot = hot || f.Metric == "hot_ratio" && f.Object == "jobs" && strings.Contains(f.Text, "→ 0.0% on jobs")
	}
	if !added || !hot {
		t.Errorf("findings of the saved result lack the new index (%v) or the HOT change (%v): %+v", added, hot, r.Findings)
	}
	var suites struct {
		Suites []struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
		} `xml:"testsuite"`
	}
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	// One case per budget, and the restore's: -- COMMAND is measured on
	// copies by default, so the restore is the copies' (nothing to undo).
	// The index budget is on the table: a budget on the new index itself
	// has no before to hold a relative change against (reported as new, not
	// failing), while the entries jobs' indexes get per update do grow.
	if err := xml.Unmarshal(data, &suites); err != nil || len(suites.Suites) != 1 || suites.Suites[0].Tests != 3 || suites.Suites[0].Failures != 2 ||
		!strings.Contains(string(data), `<testcase name="restore (clone)" classname="writeamp.check"></testcase>`) {
		t.Fatalf("junit %+v %v\n%s", suites, err, data)
	}

	dsn = scratchDB(t, "wa_test_check_good")
	summary := write(t, dir, "summary.md", "")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	out, _, err = run(t, "check", "-q", "--dsn", dsn, "--schema", base, "--migration", good, "--budget", "hot_ratio>=0.9", "--format", "markdown",
		"--", psql, dsn, "-XAtq", "-v", "ON_ERROR_STOP=1", "-f", workSQL)
	if exitCode(err) != 0 {
		t.Fatalf("good migration: exit %d (%v), want 0\n%s", exitCode(err), err, out)
	}
	if !strings.Contains(out, "### writeamp check: PASS") || strings.Contains(out, "static check") {
		t.Errorf("good migration output:\n%s", out)
	}
	if s, _ := os.ReadFile(summary); !strings.Contains(string(s), "writeamp check: PASS") {
		t.Errorf("GITHUB_STEP_SUMMARY not written: %q", s)
	}
}

// The built-in workload: the migration is applied to the workload's own
// schema with unqualified names.
func TestCheckBuiltinWorkload(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, "WRITEAMP_TEST_PG_DSN")
	dir := t.TempDir()
	bad := write(t, dir, "bad.sql", "create index idx_lsr on offline_user_session (last_session_refresh);")
	good := write(t, dir, "good.sql", "create index idx_brk on offline_user_session (user_id) where broker_session_id is not null;")
	args := []string{"check", "-q", "--dsn", dsn, "--variant", "coarse", "--logins", "100", "--refreshes-per-login", "5", "--fillfactor", "80",
		"--budget", "hot_ratio[offline_user_session]>=0.9", "--format", "json"}
	out, _, err := run(t, append(args, "--migration", bad)...)
	if exitCode(err) != 1 {
		t.Fatalf("exit %d (%v), want 1\n%s", exitCode(err), err, out)
	}
	if !strings.Contains(out, `"check": "fail"`) || !strings.Contains(out, "idx_lsr") || !strings.Contains(out, "rt_update_user_session") {
		t.Errorf("json output:\n%.3000s", out)
	}
	var doc struct {
		Result result.Result `json:"result"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Result.Findings) == 0 ||
		!strings.Contains(doc.Result.Findings[0].Text, "offline_user_session") || len(doc.Result.Changes) == 0 {
		t.Errorf("the check document's result has no findings or change column (%v): %+v", err, doc.Result.Findings)
	}
	out, _, err = run(t, append(args, "--migration", good)...)
	if exitCode(err) != 0 {
		t.Fatalf("unrelated partial index: exit %d (%v), want 0\n%.3000s", exitCode(err), err, out)
	}
}

func TestCheckRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	m := write(t, dir, "m.sql", "select 1;")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"check", "--budget", "hot_ratio>=0.9"}, "--migration is required"},
		{[]string{"check", "--migration", m, "--budget", "hot_ratio=>0.9"}, "grammar"},
		{[]string{"check", "--migration", m, "--budget", "log_bytes<=5%"}, "only fits a ratio"},
		{[]string{"check", "--migration", filepath.Join(dir, "none.sql"), "--budget", "hot_ratio>=0.9"}, "--migration"},
		{[]string{"check", "--migration", m, "--budget", "hot_ratio>=0.9", "--variant", "fast"}, "--variant"},
		{[]string{"check", "--migration", m, "stray"}, "after --"},
		{[]string{"check", "--migration", m, "--format", "yaml"}, "--format"},
		{[]string{"check", "--migration", m, "--budget", "hot_ratio>=0.9", "--", "true"}, "-- COMMAND needs --dsn"},
		{[]string{"check", "--migration", m, "--", "true"}, "--report-only"},
	}
	for _, v := range append(pgEnv, "WRITEAMP_DSN", "DATABASE_URL") {
		t.Setenv(v, "")
	}
	for _, c := range cases {
		_, _, err := run(t, c.args...)
		if exitCode(err) != 2 || err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: exit %d, %v; want 2 and %q", c.args, exitCode(err), err, c.want)
		}
	}
}

// check -- COMMAND saved the command line raw in the result: a password in
// a DSN argument went to the file people share. And a GITHUB_STEP_SUMMARY
// that is a FIFO nobody reads hung check in open(2). The --dsn holds the
// same password, so the argument is pointed at the copy it is measured on.
func TestCheckCommandLineRedactedAndSummaryFIFODoesNotHang(t *testing.T) {
	psql := testenv.Tool(t, "psql")
	dsn := scratchDB(t, "wa_test_check_redact")
	u, _ := url.Parse(dsn)
	u.User = url.UserPassword(u.User.Username(), "Secr3tPw") // trust auth takes any password
	dir := t.TempDir()
	m := write(t, dir, "m.sql", "create table t2 (id int);")
	base := write(t, dir, "base.sql", "create table t1 (id int);")
	saved := filepath.Join(dir, "r.json")
	if _, _, err := run(t, "check", "-q", "--dsn", u.String(), "--schema", base, "--migration", m, "--budget", "log_bytes<=+1000%", "--result", saved,
		"--", psql, u.String(), "-XAtqc", "insert into t1 values (1)"); err != nil && exitCode(err) != 1 {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(saved)
	if strings.Contains(string(data), "Secr3tPw") || !strings.Contains(string(data), ":xxxxx@") {
		t.Errorf("the result's command line shows the password:\n%.600s", data)
	}
	fifo := filepath.Join(dir, "summary")
	syscall.Mkfifo(fifo, 0o644)
	t.Setenv("GITHUB_STEP_SUMMARY", fifo)
	bad := write(t, dir, "bad.sql", "this is not sql;")
	done := make(chan error, 1)
	go func() {
		_, _, err := run(t, "check", "-q", "--report-only", "--dsn", dsn, "--migration", bad, "--", psql, dsn, "-XAtqc", "select 1")
		done <- err
	}()
	select {
	case err := <-done:
		if exitCode(err) != 2 {
			t.Errorf("a failing migration: exit %d (%v), want 2", exitCode(err), err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("check hangs writing GITHUB_STEP_SUMMARY to a FIFO nobody reads")
	}
}
