package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/writeamp/writeamp/internal/testing/mysqltest"
	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// interruptTarget is one database the interruption test checks against:
// how to reach it, the wrapped command, and what would show that a check
// left something behind.
type interruptTarget struct {
	dsn  string
	argv []string // the wrapped command
	env  []string // added to writeamp's environment (the command inherits it)
	left func() string
}

// TestInterruptedChecksLeaveNothing interrupts checks at random points as
// CI runners cancel a job: SIGTERM to check's whole process group (the
// wrapped command gets it too), a second one, and SIGKILL if it has not
// ended after a random grace. Each is followed by one more check, which
// must finish whatever the interrupted one left. After it: nothing of the
// migration, no journal (writeamp_undo_*), no copy database, every time.
// Ten interruptions on PostgreSQL and ten on MariaDB, on lanes of their
// own databases run side by side (a check takes seconds, the lanes keep
// the test under the suite's budget).
func TestInterruptedChecksLeaveNothing(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	inPlace := checkHasInPlace(t, bin)
	const lanes, perLane = 5, 2
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		psql := testenv.Tool(t, "psql")
		var wg sync.WaitGroup
		for lane := range lanes {
			dsn := scratchDB(t, fmt.Sprintf("wa_test_interrupt_%d", lane))
			db, err := sql.Open("pgx", dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec(`create table work (id int primary key, n int not null default 0);
insert into work select g, 0 from generate_series(1, 100) g`); err != nil {
				t.Fatal(err)
			}
			tg := interruptTarget{dsn: dsn,
				argv: []string{"sh", "-c", `"$1" "$2" -XAtqc 'update work set n = n + 1' && sleep 0.5`, "sh", psql, dsn},
				left: func() string {
					var s string
					if err := db.QueryRow(`select (select count(*) from pg_indexes where indexname = 'work_n')::text || ' index, ' ||
	(select count(*) from pg_namespace where nspname like 'writeamp\_undo\_%')::text || ' journal, ' ||
	(select count(*) from pg_database d where datname like 'writeamp\_ck\_%'
		and shobj_description(d.oid, 'pg_database') like '%copy of ' || current_database() || ',%')::text || ' copies'`).Scan(&s); err != nil {
						return err.Error()
					}
					return s
				}}
			wg.Add(1)
			go func() {
				defer wg.Done()
				interruptLane(t, bin, inPlace, tg, perLane, "0 index, 0 journal, 0 copies")
			}()
		}
		wg.Wait()
	})
	t.Run("mariadb", func(t *testing.T) {
		t.Parallel()
		client := testenv.Tool(t, "mariadb", "mysql")
		base := mysqltest.DSN(t)
		// Open holds the server's test lock: MariaDB's catalog, which
		// check compares, lists the server's databases, and other tests
		// make some of their own.
		db, _ := mysqltest.Open(t)
		var names []string
		for range lanes {
			names = append(names, mysqltest.TempDatabase(t, db))
		}
		var wg sync.WaitGroup
		for _, name := range names {
			mysqltest.Exec(t, db, "CREATE TABLE "+name+".work (id int PRIMARY KEY, n int NOT NULL DEFAULT 0) ENGINE=InnoDB",
				"INSERT INTO "+name+".work SELECT seq, 0 FROM seq_1_to_100")
			dsn := mariaDSNOf(t, base, name)
			u := strings.TrimPrefix(dsn, "mysql://")
			userHost, _, _ := strings.Cut(u, "/")
			user, hostPort, _ := strings.Cut(userHost, "@")
			host, port, _ := strings.Cut(hostPort, ":")
			pw := ""
			if uu, p, ok := strings.Cut(user, ":"); ok {
				user, pw = uu, p
			}
			tg := interruptTarget{dsn: dsn,
				// Host and port come from MYSQL_HOST and MYSQL_TCP_PORT: in
				// place they reach the test server, and on a copy check sets
				// them to its scratch server's (a port on the command line
				// would lead back to the database itself, which check refuses).
				argv: []string{"sh", "-c", `MYSQL_PWD="$4" "$1" -u"$2" "$3" -e 'update work set n = n + 1' && sleep 0.5`, "sh", client, user, name, pw},
				env:  []string{"MYSQL_HOST=" + host, "MYSQL_TCP_PORT=" + port},
				left: func() string {
					var idx, journal int
					if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND INDEX_NAME = 'work_n'", name).Scan(&idx); err != nil {
						return err.Error()
					}
					// A journal of another database's check is that check's.
					rows, err := db.Query("SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE 'writeamp\\_undo\\_%'")
					if err != nil {
						return err.Error()
					}
					var journals []string
					for rows.Next() {
						var j string
						rows.Scan(&j)
						journals = append(journals, j)
					}
					rows.Close()
					for _, j := range journals {
						var of string
						if db.QueryRow("SELECT line FROM `"+j+"`.plan WHERE kind = 'db'").Scan(&of) == nil && of == name {
							journal++
						}
					}
					return fmt.Sprintf("%d index, %d journal, 0 copies", idx, journal)
				}}
			wg.Add(1)
			go func() {
				defer wg.Done()
				interruptLane(t, bin, inPlace, tg, perLane, "0 index, 0 journal, 0 copies")
			}()
		}
		wg.Wait()
	})
}

// checkHasInPlace says whether check has --in-place (measuring on a copy
// by default); the interruptions then cover both modes.
func checkHasInPlace(t *testing.T, bin string) bool {
	out, _ := exec.Command(bin, "check", "--help").CombinedOutput()
	return bytes.Contains(out, []byte("--in-place"))
}

// interruptLane interrupts n checks against tg one after the other, each
// followed by a check that runs to its end, and asserts after each that
// nothing is left (want).
func interruptLane(t *testing.T, bin string, inPlace bool, tg interruptTarget, n int, want string) {
	dir := t.TempDir()
	up := write(t, dir, "up.sql", "create index work_n on work (n);")
	args := func(mode []string) []string {
		a := append([]string{"check", "-q", "--dsn", tg.dsn}, mode...)
		a = append(a, "--migration", up, "--budget", "log_bytes/op<=+1000%", "--")
		return append(a, tg.argv...)
	}
	for i := range n {
		var mode []string
		if inPlace && i%2 == 0 {
			mode = []string{"--in-place"}
		}
		// A point anywhere from connecting to the undo; the grace before
		// SIGKILL from none to enough for the undo to end by itself.
		at := time.Duration(300+rand.IntN(6000)) * time.Millisecond
		second := time.Duration(rand.IntN(400)) * time.Millisecond
		grace := time.Duration(rand.IntN(8000)) * time.Millisecond
		c := exec.Command(bin, args(mode)...)
		c.Env = append(os.Environ(), tg.env...)
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // a group of its own, as a CI job's
		var stderr bytes.Buffer
		c.Stdout, c.Stderr = &stderr, &stderr
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- c.Wait() }()
		how := fmt.Sprintf("%v SIGTERM at %s, again %s later", mode, at, second)
		select {
		case <-done:
			how += " (had ended already)"
		case <-time.After(at):
			syscall.Kill(-c.Process.Pid, syscall.SIGTERM)
			time.Sleep(second)
			syscall.Kill(-c.Process.Pid, syscall.SIGTERM)
			select {
			case <-done:
			case <-time.After(grace):
				syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
				<-done
				how += fmt.Sprintf(", SIGKILL after %s", grace)
			}
		}
		t.Logf("%s: %s", tg.dsn, how)
		// The next check: it finishes what the interrupted one left.
		ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
		next := exec.CommandContext(ctx, bin, args(mode)...)
		next.Env = append(os.Environ(), tg.env...)
		out, err := next.CombinedOutput()
		cancel()
		if code := exitCode(err); code != 0 && code != 1 {
			t.Errorf("%s: %s: the next check exited %d:\n%s\n--- the interrupted check:\n%s", tg.dsn, how, code, out, stderr.String())
		}
		if got := tg.left(); got != want {
			t.Errorf("%s: %s, then one more check: %s left, want %s\n--- the interrupted check:\n%s\n--- the next:\n%s", tg.dsn, how, got, want, stderr.String(), out)
		}
	}
}
