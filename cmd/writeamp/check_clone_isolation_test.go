package main

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// check --clone said the original database was not written to while the
// wrapped command, naming it in a way the --dsn text does not match,
// wrote to it; and ALTER DATABASE / CREATE ROLE in the migration ran on the
// real server. Now the original's own counters are read around each
// window: a write there fails the check (the database is not as it was),
// naming the side; a cluster-level statement is refused before anything is
// copied, and nothing of it exists afterwards.
func TestCheckCloneWatchesTheOriginal(t *testing.T) {
	t.Parallel()
	psql := testenv.Tool(t, "psql")
	admin := pgAdmin(t)
	dsn := scratchDB(t, "wa_test_clone_watch")
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("create table jobs (id int primary key, v int); insert into jobs select g, 0 from generate_series(1, 200) g"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	dir := t.TempDir()
	mig := write(t, dir, "m.sql", "create index jobs_v on jobs (v);\n")
	// The same database as --dsn, spelled another way: check cannot point
	// this argument at the copy.
	other := strings.Replace(dsn, "127.0.0.1", "localhost", 1)
	if other == dsn {
		t.Fatalf("cannot respell %s", dsn)
	}
	out, _, err := run(t, "check", "-q", "--dsn", dsn, "--clone", "--migration", mig, "--budget", "log_bytes/op<=+1000%", "--format", "json",
		"--", psql, other, "-XAtq", "-c", "update jobs set v = v + 1 where id <= 50")
	if code := exitCode(err); code < 2 {
		t.Errorf("the command wrote to the original: exit %d, want the database reported as not as it was\n%.2000s", code, out)
	}
	if !strings.Contains(out, "rows written in "+dbName(dsn)+" itself") || strings.Contains(out, "itself was not written to") {
		t.Errorf("the report does not say the original was written to:\n%.3000s", out)
	}
	var sum int
	check, _ := sql.Open("pgx", dsn)
	check.QueryRow("select sum(v) from jobs").Scan(&sum)
	check.Close()   // a database being copied may have no session
	if sum != 100 { // the command's two runs, on the original: its writes stay, and say so
		t.Errorf("the test's own reading of the original: sum(v) = %d, want 100", sum)
	}

	// The command reaching its copy: the original is proved untouched.
	out, _, err = run(t, "check", "-q", "--dsn", dsn, "--clone", "--migration", mig, "--budget", "log_bytes/op<=+1000%", "--format", "json",
		"--", psql, dsn, "-XAtq", "-c", "update jobs set v = v + 1 where id <= 50")
	if exitCode(err) != 0 || !strings.Contains(out, "itself was not written to (pg_stat_user_tables") {
		t.Errorf("command on the copy: exit %d (%v)\n%.3000s", exitCode(err), err, out)
	}

	for _, stmt := range []string{
		"alter database " + dbName(dsn) + " set work_mem = '8MB'",
		"create role wa_test_clone_role",
		"alter system set work_mem = '8MB'",
		"comment on database " + dbName(dsn) + " is 'x'",
	} {
		bad := write(t, dir, "cluster.sql", "create index jobs_v2 on jobs (v);\n"+stmt+";\n")
		_, _, err := run(t, "check", "-q", "--dsn", dsn, "--clone", "--migration", bad, "--budget", "log_bytes/op<=+1000%",
			"--", psql, dsn, "-XAtq", "-c", "select 1")
		if exitCode(err) != 2 || !strings.Contains(errText(err), "cluster.sql line 2") || !strings.Contains(errText(err), "without --clone") {
			t.Errorf("%s: exit %d (%v), want 2 naming the line", stmt, exitCode(err), err)
		}
	}
	var roles, settings int
	admin.QueryRow("select count(*) from pg_roles where rolname = 'wa_test_clone_role'").Scan(&roles)
	admin.QueryRow("select count(*) from pg_db_role_setting s join pg_database d on d.oid = s.setdatabase where d.datname = $1", dbName(dsn)).Scan(&settings)
	if roles != 0 || settings != 0 {
		t.Errorf("cluster-level statements ran: role %d, database settings %d", roles, settings)
	}
}
