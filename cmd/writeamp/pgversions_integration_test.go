package main

import (
	"context"
	"database/sql"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/writeamp/writeamp/internal/testing/pgmatrix"
	"github.com/writeamp/writeamp/result"
)

// noDatabaseInEnv makes run start its throwaway server, whatever the
// environment of the test names.
func noDatabaseInEnv(t *testing.T) {
	for _, v := range append([]string{"WRITEAMP_DSN", "DATABASE_URL", "WRITEAMP_PG_BIN"}, pgEnv...) {
		t.Setenv(v, "")
	}
}

// The README's upgrade question: the same workload on two majors, each on a
// throwaway server of its own (--pg-bin), then side by side.
func TestRunOnTwoMajorsThenCompare(t *testing.T) {
	noDatabaseInEnv(t)
	dir := t.TempDir()
	var files []string
	for _, major := range []int{13, 17} {
		f := filepath.Join(dir, fmt.Sprintf("pg%d.json", major))
		if _, errOut, err := run(t, "run", "-q", "--pg-bin", pgmatrix.Bin(t, major), "--logins", "40", "--refreshes-per-login", "3", "--format", "json", "-o", f); err != nil {
			t.Fatalf("run --pg-bin (PostgreSQL %d): %v\n%s", major, err, errOut)
		}
		r, err := result.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(r.Server.Version, fmt.Sprintf("%d.", major)) {
			t.Errorf("--pg-bin of PostgreSQL %d ran on %s", major, r.Server.Version)
		}
		files = append(files, f)
	}
	a, _ := result.Read(files[0])
	b, _ := result.Read(files[1])
	for i := range a.Runs {
		x, y := a.Runs[i].Table("offline_user_session").Metrics["rows_updated"], b.Runs[i].Table("offline_user_session").Metrics["rows_updated"]
		if x.V() != y.V() || x.V() == 0 {
			t.Errorf("%s: the same seed must issue the same statements on both majors: %v vs %v", a.Runs[i].Variant, x.V(), y.V())
		}
	}
	out, _, err := run(t, "compare", files[0], files[1], "--label", "pg13", "--label", "pg17")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "PG13 BASELINE") || !strings.Contains(out, "PG17 COARSE") {
		t.Errorf("compare does not show both majors side by side:\n%s", out)
	}
}

func slotCount(t *testing.T, db *sql.DB) int {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM pg_replication_slots`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A snapshot ... diff window across checkpoints keeps its WAL with a slot
// that the diff drops; a snapshot that is not written drops its slot at
// once; a killed measure's temporary slot goes with its connection.
func TestSnapshotDiffHoldsTheWindowsWALAndLeavesNoSlot(t *testing.T) {
	t.Parallel()
	srv := pgmatrix.Start(t, 17)
	db := srv.Open(t)
	for _, q := range []string{`ALTER SYSTEM SET max_wal_size = '32MB'`, `ALTER SYSTEM SET min_wal_size = '32MB'`, `ALTER SYSTEM SET wal_keep_size = 0`,
		`SELECT pg_reload_conf()`, `CREATE TABLE w (id int PRIMARY KEY, v text)`, `CREATE INDEX w_v ON w (v)`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	before, after, diff := filepath.Join(dir, "b.json"), filepath.Join(dir, "a.json"), filepath.Join(dir, "d.json")
	if _, e, err := run(t, "snapshot", "--dsn", srv.DSN, "-o", before); err != nil {
		t.Fatalf("%v\n%s", err, e)
	}
	if slotCount(t, db) != 1 {
		t.Fatalf("the before snapshot holds no slot")
	}
	for _, q := range []string{`INSERT INTO w SELECT g, md5(g::text) FROM generate_series(1, 50000) g`,
		`SELECT pg_switch_wal()`, `CHECKPOINT`, `SELECT pg_switch_wal()`, `CHECKPOINT`, `SELECT pg_switch_wal()`, `CHECKPOINT`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, e, err := run(t, "snapshot", "--dsn", srv.DSN, "-o", after); err != nil {
		t.Fatalf("%v\n%s", err, e)
	}
	if _, e, err := run(t, "diff", "--dsn", srv.DSN, "--format", "json", "-o", diff, before, after); err != nil {
		t.Fatalf("%v\n%s", err, e)
	}
	r, err := result.Read(diff)
	if err != nil {
		t.Fatal(err)
	}
	li := r.Runs[0].Index("w_v").Metrics["leaf_inserts"]
	if li.V() != 50000 || li.Exactness != result.Exact {
		t.Errorf("w_v leaf_inserts %v (%s) after three checkpoints, want exactly 50000", li.V(), li.Exactness)
	}
	if n := slotCount(t, db); n != 0 {
		t.Errorf("%d slot(s) left after the diff", n)
	}
	// A snapshot that cannot be written lets go of its slot.
	if _, _, err := run(t, "snapshot", "--dsn", srv.DSN, "-o", filepath.Join(dir, "no", "such", "dir.json")); err == nil {
		t.Error("writing into a missing directory must fail")
	}
	if n := slotCount(t, db); n != 0 {
		t.Errorf("%d slot(s) left after a failed snapshot", n)
	}
	// Snapshots never diffed: past four idle slots the next snapshot takes
	// none and says so; clean lists them and clean --drop drops them.
	for i := 0; i < 5; i++ {
		// The note saying why goes to the process's stderr, which run
		// does not capture; the slot count is what matters.
		if _, e, err := run(t, "snapshot", "--dsn", srv.DSN, "-o", filepath.Join(dir, fmt.Sprintf("s%d.json", i))); err != nil {
			t.Fatalf("%v\n%s", err, e)
		}
	}
	if n := slotCount(t, db); n != 4 {
		t.Errorf("%d slots after five undiffed snapshots, want 4", n)
	}
	// Listed, and left to a person (exit 3): clean never drops them itself.
	if out, _, err := run(t, "clean", "--dsn", srv.DSN); exitCode(err) != 3 || strings.Count(out, "replication slot writeamp_snap_") != 4 {
		t.Errorf("clean should list the four slots: %v\n%s", err, out)
	}
	// --drop never drops a snapshot's slot (its window may be in
	// progress) and says something is left (exit 3); --slot does.
	if _, _, err := run(t, "clean", "--dsn", srv.DSN, "--drop"); exitCode(err) != 3 || slotCount(t, db) != 4 {
		t.Errorf("clean --drop: exit %d (%v), %d slots; want 3 and the 4 slots kept", exitCode(err), err, slotCount(t, db))
	}
	rows, err := db.Query(`SELECT slot_name FROM pg_replication_slots WHERE slot_name LIKE 'writeamp\_snap\_%'`)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"clean", "--dsn", srv.DSN}
	for rows.Next() {
		var name string
		rows.Scan(&name)
		args = append(args, "--slot", name)
	}
	rows.Close()
	if _, _, err := run(t, args...); err != nil {
		t.Errorf("clean --slot …: %v", err)
	}
	if n := slotCount(t, db); n != 0 {
		t.Errorf("%d slots after clean --slot", n)
	}
	// kill -9 mid-measure: the temporary slot goes with the connection.
	bin := buildBinary(t)
	if _, err := db.Exec(`CREATE EXTENSION pg_walinspect`); err != nil { // pre-installed: the run creates nothing to clean up
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "measure", "-q", "--dsn", srv.DSN, "--", "sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	held := false
	for i := 0; i < 100 && !held; i++ {
		held = slotCount(t, db) == 1
		time.Sleep(100 * time.Millisecond)
	}
	if !held {
		cmd.Process.Kill()
		t.Fatal("measure held no slot for its window")
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for slotCount(t, db) != 0 {
		if ctx.Err() != nil {
			t.Fatal("a killed measure's slot is still on the server")
		}
		time.Sleep(100 * time.Millisecond)
	}
}
