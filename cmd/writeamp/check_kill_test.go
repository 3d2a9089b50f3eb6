package main

import (
	"bytes"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/writeamp/writeamp/check"
	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// kill -9 between apply and undo: the built binary really gets SIGKILL
// while the after side runs. The wrapped command dies with it (parent-death
// signal); the record of the migration stays, so clean lists the pending
// undo, and the next check finishes it first (with its proof), says so,
// and measures; the catalog and accounts' rows are then as before, and no
// record is left.
func TestCheckKilledMidwayTheNextCheckFinishesTheUndo(t *testing.T) {
	t.Parallel()
	psql := testenv.Tool(t, "psql")
	dsn := scratchDB(t, "wa_test_check_kill") // skips without a server: before the build
	bin := buildBinary(t)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`create table accounts (id int primary key, v int, status text);
insert into accounts select g, g % 7, 'a' from generate_series(1, 2000) g;
create table work (id int primary key, n int not null default 0);
insert into work select g, 0 from generate_series(1, 100) g;`); err != nil {
		t.Fatal(err)
	}
	orig := pgSafetyState(t, db)
	dir := t.TempDir()
	up := write(t, dir, "idx.sql", "create index work_n on work (n);")
	pidFile := filepath.Join(dir, "pid")
	// The after side (the index is there) writes its pid and sleeps as the
	// command itself (exec), so the parent-death signal reaches it.
	script := `"$1" "$2" -XAtqc 'update work set n = n + 1'; if [ "$("$1" "$2" -XAtqc "select count(*) from pg_indexes where indexname = 'work_n'")" = 1 ]; then echo $$ > "$3"; exec sleep 120; fi`
	c := exec.Command(bin, "check", "-q", "--in-place", "--dsn", dsn, "--migration", up, "--budget", "log_bytes/op<=+1000%", "--", "sh", "-c", script, "sh", psql, dsn, pidFile)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	var child int
	for deadline := time.Now().Add(90 * time.Second); child == 0 && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if b, err := readFile(pidFile); err == nil {
			child, _ = strconv.Atoi(strings.TrimSpace(b))
		}
	}
	if child == 0 {
		c.Process.Kill()
		c.Wait()
		t.Fatalf("the after side never started:\n%s", stderr.String())
	}
	c.Process.Signal(syscall.SIGKILL)
	c.Wait()
	gone := false
	for deadline := time.Now().Add(10 * time.Second); !gone && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		gone = syscall.Kill(child, 0) != nil
	}
	if !gone {
		syscall.Kill(child, syscall.SIGKILL)
		t.Errorf("the wrapped command (pid %d) outlived writeamp's kill -9", child)
	}
	var n int
	db.QueryRow("select count(*) from pg_indexes where indexname = 'work_n'").Scan(&n)
	if n != 1 {
		t.Fatalf("killed between apply and undo, but the index is not there (%d): the test did not kill where it meant to", n)
	}
	// The killed session's lock goes with its connection; wait for the
	// server to notice.
	time.Sleep(time.Second)
	out, _, err := run(t, "clean", "--dsn", dsn)
	if exitCode(err) != 1 || !strings.Contains(out, "pending") || !strings.Contains(out, "writeamp_undo_") || !strings.Contains(out, "DROP INDEX") && !strings.Contains(out, "drop index") {
		t.Errorf("clean after kill -9: %v\n%s", err, out)
	}
	stdout, stderrText, err := run(t, "check", "--in-place", "--dsn", dsn, "--migration", up, "--budget", "log_bytes/op<=+1000%", "--", psql, dsn, "-XAtqc", "update work set n = n + 1")
	if code := exitCode(err); code != check.ExitPass && code != check.ExitBudget {
		t.Errorf("the next check: exit %d (%v), want it to finish the pending undo and measure\n%s", code, err, stderrText)
	}
	if !strings.Contains(stdout+stderrText, "finished the undo of a check that was killed") {
		t.Errorf("the next check must say it finished the killed check's undo first:\n%s\n%s", stdout, stderrText)
	}
	// The workload's own writes to work stay (they are the user's
	// workload); compare all but work's counter column values.
	if now := pgSafetyState(t, db); now != orig {
		t.Fatalf("after the next check the database is not as it was:\n--- before\n%s--- after\n%s", orig, now)
	}
	if out, _, _ := run(t, "clean", "--dsn", dsn); strings.Contains(out, "writeamp_undo_") {
		t.Errorf("the next check left the record:\n%s", out)
	}
}

func readFile(p string) (string, error) {
	b, err := os.ReadFile(p)
	return string(b), err
}

// A record torn while being written (kill -9 inside it) has no last line:
// its check applied nothing, so the next check drops the record and never
// runs the undo it lists, which here would destroy a user's table.
func TestTornRecordIsDroppedNotUndone(t *testing.T) {
	t.Parallel()
	psql := testenv.Tool(t, "psql")
	dsn := scratchDB(t, "wa_test_torn_record")
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`create table accounts (id int primary key, v int);
insert into accounts select g, g from generate_series(1, 50) g;
create table work (id int primary key, n int not null default 0);
insert into work select g, 0 from generate_series(1, 10) g;
create schema writeamp_undo_0badc0de;
create table writeamp_undo_0badc0de.plan (seq int primary key, kind text not null, line text not null);
insert into writeamp_undo_0badc0de.plan values
 (0, 'meta', 'writeamp check pid 1 on elsewhere, started 2026-01-01T00:00:00Z'),
 (1, 'db', current_database()),
 (2, 'undo', 'DROP TABLE accounts'),
 (3, 'pre', 'table public.work');`); err != nil {
		t.Fatal(err)
	}
	orig := withoutRecords(pgSafetyState(t, db))
	out, _, err := run(t, "clean", "--dsn", dsn)
	if !strings.Contains(out, "record is incomplete") || !strings.Contains(out, "nothing to undo") {
		t.Errorf("clean must call the torn record incomplete (%v):\n%s", err, out)
	}
	up := write(t, t.TempDir(), "idx.sql", "create index work_n on work (n);")
	stdout, stderr, err := run(t, "check", "--in-place", "--dsn", dsn, "--migration", up, "--budget", "log_bytes/op<=+1000%", "--", psql, dsn, "-XAtqc", "update work set n = n + 1")
	if code := exitCode(err); code != check.ExitPass && code != check.ExitBudget {
		t.Errorf("the next check: exit %d (%v), want it to drop the torn record and measure\n%s", code, err, stderr)
	}
	if !strings.Contains(stdout+stderr, "record is incomplete") {
		t.Errorf("the check must say it dropped a torn record:\n%s\n%s", stdout, stderr)
	}
	var accounts int
	if err := db.QueryRow("select count(*) from accounts").Scan(&accounts); err != nil || accounts != 50 {
		t.Fatalf("the torn record's undo ran: accounts %d, %v", accounts, err)
	}
	if now := withoutRecords(pgSafetyState(t, db)); now != orig {
		t.Fatalf("the database is not as it was:\n--- before\n%s--- after\n%s", orig, now)
	}
	if out, _, _ := run(t, "clean", "--dsn", dsn); strings.Contains(out, "writeamp_undo_") {
		t.Errorf("the torn record is still there:\n%s", out)
	}
}

// withoutRecords is a safety state less check's own records (their schema,
// and their table's key, which the state names without its schema).
func withoutRecords(state string) string {
	var keep []string
	for _, l := range strings.SplitAfter(state, "\n") {
		if !strings.Contains(l, "writeamp_undo_") && !strings.HasPrefix(l, "con plan_pkey ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "")
}
