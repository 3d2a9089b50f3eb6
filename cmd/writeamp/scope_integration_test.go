package main

import (
	"database/sql"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	_ "github.com/go-sql-driver/mysql"

	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// snapshotObjects runs `writeamp snapshot` with the scope flags and returns
// the tables it read (schema.name), or the error.
func snapshotObjects(t *testing.T, dsn string, flags ...string) ([]string, error) {
	t.Helper()
	// No diff follows: the snapshot keeps no WAL for one (--hold-wal=false).
	out, _, err := run(t, append([]string{"snapshot", "-q", "--hold-wal=false", "--dsn", dsn, "-o", "-"}, flags...)...)
	if err != nil {
		return nil, err
	}
	var f struct {
		Snapshot struct {
			Objects []struct{ Level, Schema, Name string }
		}
	}
	if err := json.Unmarshal([]byte(out), &f); err != nil {
		t.Fatal(err)
	}
	var tables []string
	for _, o := range f.Snapshot.Objects {
		if o.Level == "table" {
			tables = append(tables, o.Schema+"."+o.Name)
		}
	}
	slices.Sort(tables)
	return tables, nil
}

// One rule for --schema and --table, PostgreSQL's: an unquoted name is read
// in lower case, a double-quoted one exactly. Before, --table matched
// case-insensitively and --schema case-sensitively, and a scope naming
// nothing gave an empty report and exit 0.
func TestScopeFollowsPostgresIdentifierRules(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, "WRITEAMP_TEST_PG_DSN")
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() }) // registered first, so it runs after the cleanups that DROP with db
	testenv.Reachable(t, db, "PostgreSQL")
	for _, q := range []string{`DROP SCHEMA IF EXISTS wa_scope CASCADE`, `DROP SCHEMA IF EXISTS "Wa_Scope" CASCADE`,
		`CREATE SCHEMA wa_scope`, `CREATE SCHEMA "Wa_Scope"`, `CREATE TABLE wa_scope.jobs (id int)`, `CREATE TABLE wa_scope."Jobs" (id int)`,
		`CREATE TABLE "Wa_Scope".jobs (id int)`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(q, err)
		}
	}
	t.Cleanup(func() {
		db.Exec(`DROP SCHEMA IF EXISTS wa_scope CASCADE`)
		db.Exec(`DROP SCHEMA IF EXISTS "Wa_Scope" CASCADE`)
	})
	for _, c := range []struct {
		flags []string
		want  []string
	}{
		{[]string{"--schema", "wa_scope"}, []string{"wa_scope.Jobs", "wa_scope.jobs"}},
		{[]string{"--schema", "WA_SCOPE"}, []string{"wa_scope.Jobs", "wa_scope.jobs"}},
		{[]string{"--schema", `"Wa_Scope"`}, []string{"Wa_Scope.jobs"}},
		{[]string{"--schema", "wa_scope", "--table", "JOBS"}, []string{"wa_scope.jobs"}},
		{[]string{"--schema", "wa_scope", "--table", `"Jobs"`}, []string{"wa_scope.Jobs"}},
		{[]string{"--table", `"Wa_Scope".jobs`}, []string{"Wa_Scope.jobs"}},
		{[]string{"--table", `wa_scope."Jobs",wa_scope.jobs`}, []string{"wa_scope.Jobs", "wa_scope.jobs"}},
	} {
		got, err := snapshotObjects(t, dsn, c.flags...)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%v: %v %v, want %v", c.flags, got, err, c.want)
		}
	}
	for _, c := range []struct {
		flags      []string
		says, what string
	}{
		{[]string{"--schema", "nosuch"}, "--schema nosuch", "Wa_Scope"},
		{[]string{"--schema", `"WA_SCOPE"`}, "no such schema", "wa_scope"},
		{[]string{"--schema", "wa_scope", "--table", "nosuch"}, "--table nosuch", "wa_scope.jobs"},
		{[]string{"--table", `"JOBS"`}, "no such table", "wa_scope.Jobs"},
	} {
		_, err := snapshotObjects(t, dsn, c.flags...)
		wantUsage(t, err, c.says, c.flags)
		if err != nil && !strings.Contains(err.Error(), c.what) {
			t.Errorf("%v: %v does not name what exists (%s)", c.flags, err, c.what)
		}
	}
	_, _, err = run(t, "measure", "-q", "--dsn", dsn, "--schema", "nosuch", "--", "true")
	wantUsage(t, err, "--schema nosuch", []string{"measure --schema nosuch"})
}

// MariaDB with lower_case_table_names = 0 compares names case-sensitively,
// for databases and tables alike.
func TestScopeFollowsMariaDBCaseSetting(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, "WRITEAMP_TEST_MYSQL_DSN")
	cfg := strings.TrimPrefix(dsn, "mysql://")
	user, rest, _ := strings.Cut(cfg, "@")
	hostport, _, _ := strings.Cut(rest, "/")
	db, err := sql.Open("mysql", user+"@tcp("+hostport+")/")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() }) // registered first, so it runs after the cleanups that DROP with db
	testenv.Reachable(t, db, "MariaDB")
	var lctn int
	db.QueryRow(`SELECT @@lower_case_table_names`).Scan(&lctn)
	if lctn != 0 {
		t.Skipf("lower_case_table_names = %d: this test is about a case-sensitive server", lctn)
	}
	for _, q := range []string{"DROP DATABASE IF EXISTS wa_Scope", "CREATE DATABASE wa_Scope", "CREATE TABLE wa_Scope.Jobs (id int)"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(q, err)
		}
	}
	t.Cleanup(func() { db.Exec("DROP DATABASE IF EXISTS wa_Scope") })
	if got, err := snapshotObjects(t, dsn, "--schema", "wa_Scope", "--table", "`Jobs`"); err != nil || !slices.Equal(got, []string{"wa_Scope.Jobs"}) {
		t.Errorf("exact names: %v %v", got, err)
	}
	_, err = snapshotObjects(t, dsn, "--schema", "wa_scope")
	wantUsage(t, err, "case-sensitively", []string{"--schema wa_scope"})
	_, err = snapshotObjects(t, dsn, "--schema", "wa_Scope", "--table", "jobs")
	wantUsage(t, err, "wa_Scope.Jobs", []string{"--table jobs"})
}
