package main

import (
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// A plain login role: pg_walinspect is missing with the GRANT that fixes it,
// and the caution beside pg_read_binary_file's GRANT. measure works with
// it (exit 0, by default and --for measure); run cannot create its schema
// and check cannot create its confined login (exit 1 when asked for them).
// Until issue 42 doctor judged the refresh-token experiment and exited 1
// here by default.
func TestDoctorAsANonSuperuser(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, "WRITEAMP_TEST_PG_DSN")
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	testenv.Reachable(t, db, "PostgreSQL")
	role := fmt.Sprintf("wa_test_doctor_%d", os.Getpid())
	if _, err := db.Exec("DROP ROLE IF EXISTS " + role); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE ROLE " + role + " LOGIN PASSWORD 'doctor-pw'"); err != nil {
		t.Fatal(err)
	}
	defer db.Exec("DROP ROLE IF EXISTS " + role)
	u, _ := url.Parse(dsn)
	u.User = url.UserPassword(role, "doctor-pw")
	out, _, err := run(t, "doctor", "--dsn", u.String())
	if err != nil {
		t.Fatalf("exit %d (%v), want 0: measure works for a plain role\n%s", exitCode(err), err, out)
	}
	walLine := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "pg_walinspect") && strings.Contains(l, "MISSING") {
			walLine = l
		}
	}
	if walLine == "" || !strings.Contains(out, "GRANT pg_read_server_files TO "+role) && !strings.Contains(out, `GRANT pg_read_server_files TO "`+role+`"`) {
		t.Errorf("pg_walinspect not listed as missing with its GRANT:\n%s", out)
	}
	for _, want := range []string{"available  wal_lsn", "available  pg_stat_relations", "MISSING    create schema",
		"GRANT CREATE ON DATABASE", "GRANT pg_checkpoint TO", "MISSING    confined login", `ALTER ROLE "` + role + `" CREATEROLE`,
		`GRANT EXECUTE ON FUNCTION pg_read_binary_file(text, bigint, bigint) TO "` + role + `"`,
		"caution: EXECUTE on pg_read_binary_file lets the role read every file under the data directory",
		"  measure  works\n", "  run      CANNOT WORK: missing create schema\n",
		"  check    CANNOT WORK with its built-in workload: missing create schema, confined login; check -- COMMAND works",
		"verdict: measure works here; run, check cannot (exit code 0)"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "doctor-pw") {
		t.Error("password echoed")
	}
	for purpose, code := range map[string]int{"measure": 0, "run": 1, "check": 1} {
		out, _, err := run(t, "doctor", "--dsn", u.String(), "--for", purpose)
		if exitCode(err) != code {
			t.Errorf("--for %s: exit %d (%v), want %d\n%s", purpose, exitCode(err), err, code, out)
		}
	}
	// With CREATE on the database run works; check still needs CREATEROLE.
	var dbname string
	db.QueryRow("SELECT current_database()").Scan(&dbname)
	if _, err := db.Exec("GRANT CREATE ON DATABASE " + dbname + " TO " + role); err != nil {
		t.Fatal(err)
	}
	defer db.Exec("REVOKE CREATE ON DATABASE " + dbname + " FROM " + role)
	for purpose, code := range map[string]int{"run": 0, "check": 1} {
		out, _, err := run(t, "doctor", "--dsn", u.String(), "--for", purpose)
		if exitCode(err) != code {
			t.Errorf("with CREATE, --for %s: exit %d (%v), want %d\n%s", purpose, exitCode(err), err, code, out)
		}
	}

	// The superuser: everything needed is there.
	out, _, err = run(t, "doctor", "--dsn", dsn, "--format", "json")
	if err != nil || !strings.Contains(out, `"ok": true`) {
		t.Fatalf("superuser: %v\n%s", err, out)
	}
}

// A role whose sessions are read-only (default_transaction_read_only = on):
// doctor said ready (exit 0) and run then failed at CREATE SCHEMA with
// <db>/<user> placeholders in its hint. Now doctor tries what run does
// first and names the statement for this role; run's hint names it too.
func TestDoctorAndRunOnAReadOnlyRole(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, "WRITEAMP_TEST_PG_DSN")
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	testenv.Reachable(t, db, "PostgreSQL")
	var dbname string
	db.QueryRow("SELECT current_database()").Scan(&dbname)
	role := fmt.Sprintf("wa_test_ro_%d", os.Getpid())
	for _, q := range []string{"DROP ROLE IF EXISTS " + role, "CREATE ROLE " + role + " LOGIN PASSWORD 'ro-pw'",
		"GRANT CREATE ON DATABASE " + dbname + " TO " + role, "ALTER ROLE " + role + " SET default_transaction_read_only = on"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(q, err)
		}
	}
	defer func() {
		db.Exec("REVOKE CREATE ON DATABASE " + dbname + " FROM " + role)
		db.Exec("DROP ROLE IF EXISTS " + role)
	}()
	u, _ := url.Parse(dsn)
	u.User = url.UserPassword(role, "ro-pw")
	before := catalogState(t, db)
	out, _, err := run(t, "doctor", "--dsn", u.String(), "--for", "run")
	if exitCode(err) != 1 {
		t.Fatalf("doctor: exit %d (%v), want 1: run cannot create its schema\n%s", exitCode(err), err, out)
	}
	for _, want := range []string{"MISSING    create schema", "default_transaction_read_only = on (set by user)",
		`ALTER ROLE "` + role + `" SET default_transaction_read_only = off`} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}
	if after := catalogState(t, db); after != before {
		t.Errorf("doctor left something: %s -> %s", before, after)
	}
	_, _, err = run(t, "run", "-q", "--dsn", u.String(), "--logins", "10", "--variants", "coarse")
	if err == nil || !strings.Contains(err.Error(), `ALTER ROLE "`+role+`" SET default_transaction_read_only = off`) || strings.Contains(err.Error(), "<user>") {
		t.Errorf("run's hint should name the role: %v", err)
	}
	// Without CREATE on the database the hint names both, no placeholders.
	db.Exec("ALTER ROLE " + role + " RESET default_transaction_read_only")
	db.Exec("REVOKE CREATE ON DATABASE " + dbname + " FROM " + role)
	_, _, err = run(t, "run", "-q", "--dsn", u.String(), "--logins", "10", "--variants", "coarse")
	if err == nil || !strings.Contains(err.Error(), `GRANT CREATE ON DATABASE "`+dbname+`" TO "`+role+`"`) {
		t.Errorf("run's hint should name the database and the role: %v", err)
	}
}

// On MariaDB doctor creates a database, a table and a row, and drops them:
// root may, a user without privileges may not and is told the GRANT.
func TestDoctorTriesTheSchemaOnMariaDB(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, "WRITEAMP_TEST_MYSQL_DSN")
	out, _, err := run(t, "doctor", "--dsn", dsn)
	if err != nil || !strings.Contains(out, "available  create schema") {
		t.Fatalf("root: %v\n%s", err, out)
	}
	u, _ := url.Parse(dsn)
	db, err := sql.Open("mysql", u.User.Username()+"@tcp("+u.Host+")/")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var left int
	db.QueryRow(`SELECT count(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE 'writeamp\_doctor\_%'`).Scan(&left)
	if left != 0 {
		t.Errorf("doctor left %d databases", left)
	}
	// @'%', as the other tests' users: whether 127.0.0.1 reaches an account
	// @'localhost' depends on the server's name resolution.
	user := fmt.Sprintf("wa_doc_%d", os.Getpid())
	db.Exec("DROP USER IF EXISTS '" + user + "'@'%'")
	if _, err := db.Exec("CREATE USER '" + user + "'@'%' IDENTIFIED BY 'doc-pw'"); err != nil {
		t.Fatal(err)
	}
	defer db.Exec("DROP USER IF EXISTS '" + user + "'@'%'")
	// Enough to connect to the DSN's database, not to create one.
	if _, err := db.Exec("GRANT SELECT ON " + strings.TrimPrefix(u.Path, "/") + ".* TO '" + user + "'@'%'"); err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(user, "doc-pw")
	out, _, err = run(t, "doctor", "--dsn", u.String(), "--for", "run")
	if exitCode(err) != 1 || !strings.Contains(out, "MISSING    create schema") || !strings.Contains(out, "GRANT CREATE, DROP, ALTER, INDEX, INSERT, UPDATE, DELETE, SELECT ON *.* TO '"+user+"'@'%'") {
		t.Errorf("exit %d (%v):\n%s", exitCode(err), err, out)
	}
}
