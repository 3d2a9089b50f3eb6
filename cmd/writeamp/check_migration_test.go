package main

import (
	"strings"
	"testing"

	"github.com/writeamp/writeamp/internal/testenv"
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
