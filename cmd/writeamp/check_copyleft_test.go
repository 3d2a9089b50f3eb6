package main

import (
	"strings"
	"testing"

	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// clean and check act on the database they were given only: a copy a
// killed check left of another database of the server is listed, never
// dropped; one of this database is dropped by clean --drop, and by the next
// check before it copies (which logs it).
func TestLeftCopiesOfOtherDatabasesAreNeverTouched(t *testing.T) {
	t.Parallel()
	psql := testenv.Tool(t, "psql")
	dsn, admin := privateServer(t, "wa_copyleft")
	if _, err := admin.Exec("create database wa_copyleft_other"); err != nil {
		t.Fatal(err)
	}
	plant := func(name, of string) {
		t.Helper()
		for _, q := range []string{
			"create database " + name + " template template0",
			"comment on database " + name + " is 'writeamp check --clone: copy of " + of + ", run " + name[12:20] + " (lock writeamp:" + name[:20] + "), pid 1 on gone'",
		} {
			if _, err := admin.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
	}
	exists := func(name string) bool {
		var n int
		admin.QueryRow("select count(*) from pg_database where datname = $1", name).Scan(&n)
		return n == 1
	}
	other, mine := "writeamp_ck_aaaaaaaa_b1", "writeamp_ck_bbbbbbbb_b1"
	plant(other, "wa_copyleft_other")
	plant(mine, "wa_copyleft")
	out, _, err := run(t, "clean", "--dsn", dsn, "--drop")
	if err != nil && exitCode(err) != 1 {
		t.Fatalf("clean --drop: %v\n%s", err, out)
	}
	if !exists(other) || exists(mine) || !strings.Contains(out, "a copy of another database; never touched") {
		t.Fatalf("clean --drop: other kept %v, mine dropped %v:\n%s", exists(other), !exists(mine), out)
	}
	plant(mine, "wa_copyleft")
	w := write(t, t.TempDir(), "w.sql", "select 1;")
	m := write(t, t.TempDir(), "m.sql", "create table wa_t (i int);")
	_, stderr, err := run(t, "check", "--dsn", dsn, "--clone", "--report-only", "--migration", m, "--", psql, dsn, "-XAtq", "-f", w)
	if err != nil {
		t.Fatalf("check: %v\n%s", err, stderr)
	}
	// The log goes to the process's stderr; what was dropped is read here.
	if exists(mine) || !exists(other) {
		t.Errorf("check: its database's leftover copy dropped %v, another's kept %v:\n%s", !exists(mine), exists(other), stderr)
	}
}
