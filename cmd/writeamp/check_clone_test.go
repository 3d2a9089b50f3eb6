package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// copiesLeft counts check --clone's copies on the server.
func copiesLeft(t *testing.T, admin *sql.DB) int {
	t.Helper()
	var n int
	if err := admin.QueryRow(`select count(*) from pg_database where datname like 'writeamp\_ck\_%'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// pgAdmin connects to the test server's maintenance database, closed when
// the test ends.
func pgAdmin(t *testing.T) *sql.DB {
	t.Helper()
	admin, err := sql.Open("pgx", testenv.DSN(t, "WRITEAMP_TEST_PG_DSN"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	testenv.Reachable(t, admin, "PostgreSQL")
	return admin
}

// check --clone measures on copies and leaves no database behind after a
// success, a failure (a migration that does not apply, a refused copy) or
// a real SIGINT to the process, and never writes to the database itself:
// its catalog and its rows are what they were. A SIGINT leaves the same
// nothing by default (copies) and with --in-place (undone on the way out).
func TestCheckCloneLeavesNothingBehind(t *testing.T) {
	t.Parallel()
	psql := testenv.Tool(t, "psql")
	dsn, admin := privateServer(t, "wa_test_check_clone") // a server of its own: it held the shared one ~30 s
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`create table jobs (id int primary key, status text not null, touched_at int not null default 0) with (fillfactor = 70);
insert into jobs select g, 'ready', 0 from generate_series(1, 500) g`); err != nil {
		t.Fatal(err)
	}
	orig := pgCatalog(t, db)
	db.Close() // a database being copied may have no session
	left := copiesLeft(t, admin)
	dir := t.TempDir()
	bad := write(t, dir, "bad.sql", "create index jobs_touched on jobs (touched_at);")
	good := write(t, dir, "good.sql", "create index jobs_ready on jobs (id) where status = 'failed';")
	broken := write(t, dir, "broken.sql", "create index jobs_x on no_such_table (x);")
	// One statement per row, autocommitted, so that pruning keeps HOT possible.
	var work strings.Builder
	for i := 1; i <= 300; i++ {
		work.WriteString("update jobs set touched_at = touched_at + 1 where id = " + strconv.Itoa(i) + ";\n")
	}
	workSQL := write(t, dir, "work.sql", work.String())
	cmd := []string{"--", psql, dsn, "-XAtq", "-v", "ON_ERROR_STOP=1", "-f", workSQL}
	after := func(what string) {
		t.Helper()
		if n := copiesLeft(t, admin); n != left {
			t.Errorf("%s: %d copies left behind", what, n-left)
		}
		db, err := sql.Open("pgx", dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if now := pgCatalog(t, db); now != orig {
			t.Errorf("%s: the database itself changed:\n--- before\n%s--- after\n%s", what, orig, now)
		}
	}
	for _, c := range []struct {
		migration string
		code      int
		want      string
	}{
		{bad, 1, `"check": "fail"`},
		{good, 0, `"check": "pass"`},
		{broken, 2, "no_such_table"},
	} {
		out, _, err := run(t, append([]string{"check", "-q", "--dsn", dsn, "--clone", "--migration", c.migration, "--budget", "hot_ratio>=0.9", "--format", "json"}, cmd...)...)
		if exitCode(err) != c.code || !strings.Contains(out+errText(err), c.want) {
			t.Errorf("%s: exit %d (%v), want %d and %q\n%.1500s", filepath.Base(c.migration), exitCode(err), err, c.code, c.want, out)
		}
		if c.code != 2 && !strings.Contains(out, `"method": "clone"`) || c.code != 2 && !strings.Contains(out, "copies of "+dbName(dsn)) {
			t.Errorf("%s: the restore does not say what the copies cost:\n%.3000s", filepath.Base(c.migration), out)
		}
		after(filepath.Base(c.migration))
	}

	// Refused before anything is copied: another session on the database.
	busy, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	busy.SetMaxIdleConns(1)
	if err := busy.Ping(); err != nil {
		t.Fatal(err)
	}
	_, _, err = run(t, append([]string{"check", "-q", "--report-only", "--dsn", dsn, "--clone", "--migration", bad}, cmd...)...)
	busy.Close()
	if exitCode(err) != 2 || err == nil || !strings.Contains(err.Error(), "other session(s) are connected") || !strings.Contains(err.Error(), "pg_stat_activity") {
		t.Errorf("a busy database: exit %d (%v), want 2 naming the sessions", exitCode(err), err)
	}
	after("busy database")

	// A real SIGINT while the command runs: on a copy (--clone, and the
	// default, which copies too), and on the database itself (--in-place:
	// the migration's inverse undoes it on the way out).
	bin := buildBinary(t)
	for _, mode := range [][]string{{"--clone"}, {}, {"--in-place"}} {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		args := append(append([]string{"check", "-q", "--report-only", "--dsn", dsn}, mode...), "--migration", bad, "--", psql, dsn, "-XAtqc",
			"select pg_sleep(case when exists (select from pg_indexes where indexname = 'jobs_touched') then 60 else 0 end)")
		p := exec.CommandContext(ctx, bin, args...)
		var stderr strings.Builder
		p.Stderr = &stderr
		if err := p.Start(); err != nil {
			t.Fatal(err)
		}
		// Interrupt once the command runs: on the copy, or in the after
		// run, with the migration applied.
		probe := func() bool {
			if len(mode) == 0 || mode[0] != "--in-place" {
				return copiesLeft(t, admin) > left
			}
			var n int
			db, err := sql.Open("pgx", dsn)
			if err == nil {
				// the after run: the migration's index is there
				db.QueryRow(`select count(*) from pg_stat_activity a, pg_indexes i
 where a.query like 'select pg_sleep(case%' and a.wait_event = 'PgSleep' and i.indexname = 'jobs_touched'`).Scan(&n)
				db.Close()
			}
			return n > 0
		}
		for i := 0; !probe(); i++ {
			if i == 400 {
				p.Process.Kill()
				t.Fatalf("%v: the command did not start within 20 s: %s", mode, stderr.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
		time.Sleep(300 * time.Millisecond)
		p.Process.Signal(syscall.SIGINT)
		err := p.Wait()
		cancel()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Errorf("SIGINT %v: exit %v, want 130; stderr: %s", mode, err, stderr.String())
		}
		after(fmt.Sprintf("SIGINT %v", mode))
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func dbName(dsn string) string {
	_, rest, _ := strings.Cut(strings.TrimPrefix(dsn, "postgres://"), "/")
	name, _, _ := strings.Cut(rest, "?")
	return name
}
