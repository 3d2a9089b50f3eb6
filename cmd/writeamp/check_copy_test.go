package main

import (
	"database/sql"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/internal/testing/mysqltest"
	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// scratchDirOf is the scratch server's directory the restore's cost names.
func scratchDirOf(t *testing.T, stderr string) string {
	t.Helper()
	m := regexp.MustCompile(`in (\S*writeamp-(?:pg|my)-\d+)`).FindStringSubmatch(stderr)
	if m == nil {
		return ""
	}
	return m[1]
}

// processesUsing counts the processes whose command line names dir.
func processesUsing(t *testing.T, dir string) int {
	t.Helper()
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	n := 0
	for _, p := range cmdlines {
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), dir) {
			n++
		}
	}
	return n
}

type copyDoc struct {
	Check   string `json:"check"`
	Restore struct {
		Method string `json:"method"`
		How    string `json:"how"`
		Cost   string `json:"cost"`
	} `json:"restore"`
}

// -- COMMAND without a mode flag never applies the migration to the
// database: a down file that undoes nothing changes nothing, on the
// TEMPLATE copy (nobody else connected) and on the scratch server (another
// session connected); no database, server or directory is left.
func TestCheckCopiesByDefaultOnPostgres(t *testing.T) {
	psql := testenv.Tool(t, "psql")
	dsn := scratchDB(t, "wa_test_copy_default")
	admin := pgAdmin(t)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`create table accounts (id int primary key, v int, status text);
insert into accounts select g, 0, 'a' from generate_series(1, 500) g`); err != nil {
		t.Fatal(err)
	}
	db.Close() // nobody connected: the first case copies on the server itself
	dir := t.TempDir()
	up := write(t, dir, "m.sql", "create index acct_status on accounts (status);")
	write(t, dir, "m.down.sql", "select 1;")
	work := write(t, dir, "w.sql", "update accounts set v = v + 1 where id <= 100;")
	left := copiesLeft(t, admin)
	for _, c := range []struct {
		name, method string
		other        bool
	}{{"template", "CREATE DATABASE … TEMPLATE", false}, {"scratch server", "scratch PostgreSQL", true}} {
		t.Run(c.name, func(t *testing.T) {
			if c.other {
				hold, err := sql.Open("pgx", dsn)
				if err != nil {
					t.Fatal(err)
				}
				defer hold.Close()
				if err := hold.PingContext(t.Context()); err != nil {
					t.Fatal(err)
				}
			}
			out, stderr, err := run(t, "check", "--dsn", dsn, "--migration", up, "--budget", "log_bytes/op<=+1000%", "--format", "json",
				"--", psql, dsn, "-XAtq", "-v", "ON_ERROR_STOP=1", "-f", work)
			// The budget's verdict is not the point (the shared server's WAL
			// is everyone's); that the check measured and left nothing is.
			if code := exitCode(err); code != 0 && code != 1 {
				t.Fatalf("exit %d (%v)\n%s\n%s", code, err, out, stderr)
			}
			var doc copyDoc
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if !strings.Contains(doc.Restore.How+doc.Restore.Cost, c.method) || doc.Restore.Cost == "" {
				t.Errorf("restore does not state the copy's method %q and cost: %+v", c.method, doc.Restore)
			}
			check, err := sql.Open("pgx", dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer check.Close()
			var idx, sum int
			check.QueryRow("select count(*) from pg_indexes where indexname = 'acct_status'").Scan(&idx)
			check.QueryRow("select sum(v) from accounts").Scan(&sum)
			if idx != 0 || sum != 0 {
				t.Errorf("the database itself was changed: index acct_status %d, sum(v) %d", idx, sum)
			}
			if n := copiesLeft(t, admin); n != left {
				t.Errorf("%d copies left on the server", n-left)
			}
			if c.other {
				sdir := scratchDirOf(t, doc.Restore.Cost)
				if sdir == "" {
					t.Fatalf("the restore names no scratch server directory: %+v\n%s", doc.Restore, stderr)
				}
				if _, err := os.Stat(sdir); !os.IsNotExist(err) {
					t.Errorf("the scratch server's directory %s is still there (%v)", sdir, err)
				}
				if n := processesUsing(t, sdir); n > 0 {
					t.Errorf("%d processes of the scratch server still run", n)
				}
			}
		})
	}
	// Too big for --copy-max-size: refused before anything runs, naming the options.
	_, _, err = run(t, "check", "-q", "--dsn", dsn, "--migration", up, "--budget", "log_bytes/op<=+1000%", "--copy-max-size", "1KiB",
		"--", psql, dsn, "-XAtq", "-f", work)
	if exitCode(err) != exitUsage || !strings.Contains(err.Error(), "--in-place") || !strings.Contains(err.Error(), "--copy-max-size") {
		t.Errorf("--copy-max-size 1KiB: exit %d, %v; want 2 naming --in-place and --copy-max-size", exitCode(err), err)
	}
	// A command that names the database itself, not through the --dsn
	// text, would write it while its copies are measured: refused before
	// anything runs, and the database is as it was.
	name := strings.TrimPrefix(dsn[strings.LastIndex(dsn, "/"):], "/")
	name, _, _ = strings.Cut(name, "?")
	_, _, err = run(t, "check", "-q", "--dsn", dsn, "--migration", up, "--budget", "log_bytes/op<=+1000%",
		"--", psql, "-h", "127.0.0.1", "-d", name, "-XAtq", "-c", "update accounts set v = v + 1")
	if exitCode(err) != exitUsage || !strings.Contains(err.Error(), "names the database "+name) || !strings.Contains(err.Error(), "--in-place") {
		t.Errorf("psql -d %s under check: exit %d, %v; want 2 naming the database and --in-place", name, exitCode(err), err)
	}
	check, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer check.Close()
	var sum int
	if check.QueryRow("select sum(v) from accounts").Scan(&sum); sum != 0 {
		t.Errorf("the refused command wrote the database itself: sum(v) %d", sum)
	}
}

// The same on MariaDB: a scratch server from the local binaries, loaded
// with mariadb-dump; the database keeps no index and nothing is left.
func TestCheckCopiesByDefaultOnMariaDB(t *testing.T) {
	client := testenv.Tool(t, "mariadb", "mysql")
	testenv.Tool(t, "mariadb-install-db", "mysql_install_db")
	db, _ := mysqltest.Open(t)
	name := mysqltest.TempDatabase(t, db)
	mysqltest.Exec(t, db, "CREATE TABLE "+name+".accounts (id int PRIMARY KEY, v int, status varchar(10)) ENGINE=InnoDB",
		"INSERT INTO "+name+".accounts SELECT seq, 0, 'a' FROM seq_1_to_500")
	u, err := url.Parse(mysqltest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	dsn := u.String()
	dir := t.TempDir()
	up := write(t, dir, "m.sql", "create index acct_status on accounts (status);")
	work := write(t, dir, "w.sql", "update accounts set v = v + 1 where id <= 100;")
	// The command reaches the copy through the MYSQL_* variables check sets.
	out, stderr, err := run(t, "check", "--dsn", dsn, "--migration", up, "--budget", "log_bytes/op<=+1000%", "--format", "json",
		"--", "sh", "-c", client+` -uroot "$1" < "$2"`, "sh", name, work)
	if code := exitCode(err); code != 0 && code != 1 {
		t.Fatalf("exit %d (%v)\n%s\n%s", code, err, out, stderr)
	}
	var doc copyDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(doc.Restore.Cost, "scratch server") {
		t.Errorf("restore does not state the scratch server: %+v", doc.Restore)
	}
	var idx, sum int
	db.QueryRow("SELECT COUNT(*) FROM information_schema.statistics WHERE table_schema = ? AND index_name = 'acct_status'", name).Scan(&idx)
	db.QueryRow("SELECT SUM(v) FROM " + name + ".accounts").Scan(&sum)
	if idx != 0 || sum != 0 {
		t.Errorf("the database itself was changed: index acct_status %d, sum(v) %d", idx, sum)
	}
	sdir := scratchDirOf(t, doc.Restore.Cost)
	if sdir == "" {
		t.Fatalf("the restore names no scratch server directory: %+v\n%s", doc.Restore, stderr)
	}
	if _, err := os.Stat(sdir); !os.IsNotExist(err) {
		t.Errorf("the scratch server's directory %s is still there (%v)", sdir, err)
	}
	if n := processesUsing(t, sdir); n > 0 {
		t.Errorf("%d processes of the scratch server still run", n)
	}
}
