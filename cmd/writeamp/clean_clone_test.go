package main

import (
	"context"
	"database/sql"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// cloneState is the line writeamp clean prints for a copy ("" when none).
// clean's exit status must be want, or any of 0, 1 and 3 for want < 0 (a
// server others share may hold what clean lists besides the copies).
func cloneState(t *testing.T, want int, args ...string) string {
	t.Helper()
	out, _, err := run(t, append([]string{"clean"}, args...)...)
	if code := exitCode(err); want >= 0 && code != want || want < 0 && code != 0 && code != 1 && code != 3 {
		t.Fatalf("clean %v: exit %d (%v), want %d\n%s", args, code, err, want, out)
	}
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "database writeamp_ck_") {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	return strings.Join(lines, "\n")
}

// A check --clone killed with -9 leaves its copy; writeamp clean lists it
// as in use while the check lives (its lock) or a session uses it, never
// drops it then, and once both are gone lists it as abandoned and drops it
// with --drop. A writeamp_ck_* database without writeamp's marker is
// listed and never touched. clean exits 1 while it lists a copy --drop
// would drop, 0 once nothing but what is in use or not ours is left.
func TestCleanDropsCopiesOfAKilledCheck(t *testing.T) {
	t.Parallel()
	psql := testenv.Tool(t, "psql")
	admin := pgAdmin(t)
	dsn := scratchDB(t, "wa_test_clean_clone")
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("create table jobs (id int primary key, touched_at int not null default 0); insert into jobs select g, 0 from generate_series(1, 100) g"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	t.Cleanup(func() {
		// whatever the test left: the copies of this test's checks only
		rows, _ := admin.Query(`select datname from pg_database where datname ~ '^writeamp_ck_' and shobj_description(oid, 'pg_database') like '%copy of ` + dbName(dsn) + `,%' or datname = 'writeamp_ck_00000000_b1'`)
		var names []string
		for rows != nil && rows.Next() {
			var n string
			rows.Scan(&n)
			names = append(names, n)
		}
		for _, n := range names {
			admin.Exec(`drop database if exists "` + n + `" with (force)`)
		}
	})
	notOurs := "writeamp_ck_00000000_b1"
	if _, err := admin.Exec("create database " + notOurs + " template template0"); err != nil {
		t.Fatal(err)
	}

	bin := buildBinary(t)
	mig := write(t, t.TempDir(), "m.sql", "create index jobs_touched on jobs (touched_at);")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	// The command sleeps on the copy: the check is mid-measurement.
	p := exec.CommandContext(ctx, bin, "check", "-q", "--report-only", "--dsn", dsn, "--clone", "--migration", mig, "--", psql, dsn, "-XAtqc", "select pg_sleep(60)")
	var stderr strings.Builder
	p.Stderr = &stderr
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	sleeping := func() (copyName string) {
		admin.QueryRow(`select datname from pg_stat_activity where query = 'select pg_sleep(60)' and datname like 'writeamp\_ck\_%'`).Scan(&copyName)
		return copyName
	}
	var copyName string
	for i := 0; copyName == ""; i++ {
		if i == 400 {
			p.Process.Kill()
			t.Fatalf("the command did not start on a copy within 20 s: %s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
		copyName = sleeping()
	}

	// The check lives: in use, and --drop leaves it.
	got := cloneState(t, 0, "--dsn", dsn, "--drop")
	if !strings.Contains(got, "in use     database "+copyName) || !strings.Contains(got, "not ours   database "+notOurs) || strings.Contains(got, "dropped") {
		t.Fatalf("clean --drop during a check:\n%s", got)
	}

	// kill -9: nothing in the check runs; its copy stays. The command it
	// started still sleeps there: in use until it ends.
	p.Process.Signal(syscall.SIGKILL)
	p.Wait()
	if got := cloneState(t, 0, "--dsn", dsn, "--drop"); !strings.Contains(got, "in use     database "+copyName) {
		t.Fatalf("clean --drop while the killed check's command still runs on its copy:\n%s", got)
	}
	admin.Exec("select pg_terminate_backend(pid) from pg_stat_activity where datname = $1", copyName)
	deadline := time.Now().Add(20 * time.Second)
	for {
		got = cloneState(t, -1, "--dsn", dsn)
		if strings.Contains(got, "abandoned  database "+copyName) || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if !strings.Contains(got, "abandoned  database "+copyName) || !strings.Contains(got, "copy of "+dbName(dsn)) || !strings.Contains(got, "clean --drop drops it") {
		t.Fatalf("clean after the killed check's sessions ended:\n%s", got)
	}
	cloneState(t, 1, "--dsn", dsn) // the abandoned copy: clean --drop would drop it
	got = cloneState(t, 0, "--dsn", dsn, "--drop")
	if !strings.Contains(got, "abandoned  database "+copyName) || !strings.Contains(got, "; dropped") || !strings.Contains(got, "not ours   database "+notOurs) {
		t.Fatalf("clean --drop:\n%s", got)
	}
	// Counted among this database's copies and the unmarked one: checks of
	// other databases may copy on the shared server meanwhile.
	var n, mine, unmarked int
	admin.QueryRow("select count(*) from pg_database where datname = $1", copyName).Scan(&n)
	admin.QueryRow(`select count(*) filter (where shobj_description(oid, 'pg_database') like $1), count(*) filter (where datname = $2)
  from pg_database where datname like 'writeamp\_ck\_%'`, "%copy of "+dbName(dsn)+",%", notOurs).Scan(&mine, &unmarked)
	if n != 0 || mine != 0 || unmarked != 1 {
		t.Fatalf("after clean --drop: the copy is still there (%d), %d copies of %s left (want none), the unmarked one %d time(s)", n, mine, dbName(dsn), unmarked)
	}
	admin.Exec("drop database " + notOurs)
}

// The lock alone keeps a copy: a marked copy no session uses whose run's
// lock another session holds (a check between two steps) is in use.
func TestCleanKeepsCopiesOfALockedRun(t *testing.T) {
	t.Parallel()
	admin := pgAdmin(t)
	const name = "writeamp_ck_0badc0de_a1"
	admin.Exec("drop database if exists " + name)
	if _, err := admin.Exec("create database " + name + " template template0"); err != nil {
		t.Fatal(err)
	}
	defer admin.Exec("drop database if exists " + name)
	// A copy of the database clean is given: clean never touches another's.
	dsn := testenv.DSN(t, "WRITEAMP_TEST_PG_DSN")
	if _, err := admin.Exec("comment on database " + name + " is 'writeamp check --clone: copy of " + dbName(dsn) + ", run 0badc0de (lock writeamp:writeamp_ck_0badc0de), pid 1 on h'"); err != nil {
		t.Fatal(err)
	}
	conn, err := admin.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "select pg_advisory_lock(hashtextextended('writeamp:writeamp_ck_0badc0de', 0))"); err != nil {
		t.Fatal(err)
	}
	if got := cloneState(t, -1, "--dsn", dsn, "--drop"); !strings.Contains(got, "in use     database "+name) {
		t.Fatalf("a copy whose run's lock is held:\n%s", got)
	}
	conn.ExecContext(context.Background(), "select pg_advisory_unlock(hashtextextended('writeamp:writeamp_ck_0badc0de', 0))")
	conn.Close()
	if got := cloneState(t, -1, "--dsn", dsn, "--drop"); !strings.Contains(got, "abandoned  database "+name) || !strings.Contains(got, "; dropped") {
		t.Fatalf("once the lock is free:\n%s", got)
	}
}
