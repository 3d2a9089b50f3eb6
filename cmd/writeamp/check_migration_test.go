package main

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/internal/testing/testenv"
	"github.com/writeamp/writeamp/result"
)

// check measures the migration's own apply step: its log (at least the new
// index's pages, which a B-tree build writes to the WAL whole), the size it
// added (the index's own, read by pg_relation_size) and its duration; a
// migration.* budget fails on it, and another passes.
func TestCheckMeasuresTheMigrationItself(t *testing.T) {
	t.Parallel()
	psql := testenv.Tool(t, "psql")
	dir := t.TempDir()
	base := write(t, dir, "base.sql", `create table mig (id int primary key, v int not null);
insert into mig select g, g from generate_series(1, 20000) g;`)
	work := write(t, dir, "work.sql", "update mig set v = v + 1 where id <= 100;")
	mig := write(t, dir, "mig.sql", "create index mig_v on mig (v);")
	dsn := scratchDB(t, "wa_test_check_migration")
	saved := write(t, dir, "r.json", "")
	out, _, err := run(t, "check", "-q", "--dsn", dsn, "--schema", base, "--migration", mig,
		"--budget", "migration.log_bytes<=1KiB", "--budget", "migration.seconds<=600", "--result", saved,
		"--", psql, dsn, "-XAtq", "-v", "ON_ERROR_STOP=1", "-f", work)
	if exitCode(err) != 1 {
		t.Fatalf("exit %d (%v), want 1: the migration writes more than 1 KiB of WAL\n%s", exitCode(err), err, out)
	}
	r, err := result.Read(saved)
	if err != nil {
		t.Fatal(err)
	}
	m := r.Migration
	if m == nil {
		t.Fatalf("no migration run in the result")
	}
	ix := m.Index("mig_v")
	if ix == nil {
		t.Fatalf("the migration's window does not list the index it created: %+v", m.Indexes)
	}
	size := ix.Metrics["size_bytes"]
	lb, added, secs := m.Database["log_bytes"], m.Database["size_added_bytes"], m.Database["seconds"]
	if !size.OK() || size.V() < 8192*10 {
		t.Fatalf("mig_v size %+v: 20,000 keys take more than ten pages", size)
	}
	if !lb.OK() || lb.Exactness != result.Exact || lb.V() < size.V() {
		t.Errorf("migration log bytes %+v, want at least the index's %v bytes (each page of the build is WAL-logged)", lb, size.V())
	}
	if !added.OK() || added.V() < size.V() {
		t.Errorf("size added %+v, want at least the new index's %v", added, size.V())
	}
	if !secs.OK() || secs.V() <= 0 || secs.V() > 600 {
		t.Errorf("seconds %+v", secs)
	}
	for _, want := range []string{"migration.log_bytes<=", "FAIL", "migration.seconds<=600", "PASS", "migration: applying it took"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// The built-in workload's check measures the apply step too: the migration
// runs in the workload's schema in a window of its own, before the "after"
// workload window, so a migration.* budget fails on it (it was Unknown).
func TestCheckMeasuresTheBuiltinMigration(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, "WRITEAMP_TEST_PG_DSN")
	dir := t.TempDir()
	mig := write(t, dir, "mig.sql", "create index mig_u on offline_user_session (user_id, created_on);")
	saved := write(t, dir, "r.json", "")
	out, _, err := run(t, "check", "-q", "--dsn", dsn, "--variant", "coarse", "--logins", "40", "--refreshes-per-login", "2",
		"--migration", mig, "--budget", "migration.log_bytes<=1KiB", "--budget", "migration.seconds<=600", "--result", saved)
	if exitCode(err) != 1 {
		t.Fatalf("exit %d (%v), want 1: creating an index writes more than 1 KiB of WAL\n%s", exitCode(err), err, out)
	}
	migrationHeld(t, saved, out, "mig_u")
}

// --clone measures the apply step on the first "after" copy.
func TestCheckCloneMeasuresTheMigration(t *testing.T) {
	t.Parallel()
	psql := testenv.Tool(t, "psql")
	dir := t.TempDir()
	dsn := scratchDB(t, "wa_test_check_clone_migration")
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`create table mig (id int primary key, v int not null); insert into mig select g, g from generate_series(1, 5000) g`); err != nil {
		t.Fatal(err)
	}
	db.Close() // a database being copied may have no session
	mig := write(t, dir, "mig.sql", "create index mig_v on mig (v);")
	work := write(t, dir, "work.sql", "update mig set v = v + 1 where id <= 50;")
	saved := write(t, dir, "r.json", "")
	out, _, err := run(t, "check", "-q", "--dsn", dsn, "--clone", "--migration", mig, "--budget", "migration.log_bytes<=1KiB",
		"--budget", "migration.seconds<=600", "--result", saved, "--", psql, dsn, "-XAtq", "-v", "ON_ERROR_STOP=1", "-f", work)
	if exitCode(err) != 1 {
		t.Fatalf("exit %d (%v), want 1\n%s", exitCode(err), err, out)
	}
	migrationHeld(t, saved, out, "mig_v")
}

// migrationHeld: the result's migration run lists the index the migration
// created, with exact log bytes of at least its size, and the output says
// the 1 KiB budget failed, the 600 s one passed, and the apply step's note
// (rows written and lock waits, said even when there were none).
func migrationHeld(t *testing.T, saved, out, index string) {
	t.Helper()
	r, err := result.Read(saved)
	if err != nil {
		t.Fatal(err)
	}
	m := r.Migration
	if m == nil {
		t.Fatalf("no migration run in the result:\n%s", out)
	}
	ix := m.Index(index)
	if ix == nil {
		t.Fatalf("the migration's window does not list %s: %+v", index, m.Indexes)
	}
	size, lb := ix.Metrics["size_bytes"], m.Database["log_bytes"]
	if !size.OK() || size.V() < 8192 || !lb.OK() || lb.Exactness != result.Exact || lb.V() < size.V() {
		t.Errorf("%s size %+v, migration log bytes %+v: want exact log bytes of at least the new index", index, size, lb)
	}
	t.Logf("migration: %.0f B of WAL (%s), %s %.0f B, %.3f s", lb.V(), lb.Exactness, index, size.V(), m.Database["seconds"].V())
	for _, want := range []string{"migration.log_bytes<=", "FAIL", "migration.seconds<=600", "PASS", "migration: applying it took", "lock wait"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
