package main

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/check"
	"github.com/writeamp/writeamp/internal/testing/mysqltest"
	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// mariaSafetyState is mariaCatalog plus a checksum of every row of jobs,
// read by the test itself.
func mariaSafetyState(t *testing.T, db *sql.DB, name string) string {
	t.Helper()
	var sum, n sql.NullString
	db.QueryRow("select count(*), sum(crc32(concat_ws(',', id, state, touched))) from "+name+".jobs").Scan(&n, &sum)
	return mariaCatalog(t, db, name) + "\njobs checksum " + n.String + " " + sum.String
}

// On MariaDB (DDL commits at once: no transaction to roll back) the
// undo is held to what the migration changed before it runs: a no-op up's
// down that drops the user's table is not run; a down that would drop a
// table there before is refused (exit 3) and the migration undone by the
// inverse of its statements instead; BEGIN without COMMIT is rolled back
// (exit 2). jobs and its rows come through each case exactly. All of this
// is --in-place: by default -- COMMAND is measured on a copy and nothing
// is undone on the database.
func TestCheckNeverLosesMariaDBData(t *testing.T) {
	t.Parallel()
	client := testenv.Tool(t, "mariadb", "mysql")
	db, _ := mysqltest.Open(t)
	name := mysqltest.TempDatabase(t, db)
	mysqltest.Exec(t, db, "CREATE TABLE "+name+".jobs (id int PRIMARY KEY, state varchar(20), touched int) ENGINE=InnoDB",
		"INSERT INTO "+name+".jobs SELECT seq, 'new', seq % 5 FROM seq_1_to_2000",
		"CREATE TABLE "+name+".work (id int PRIMARY KEY, n int NOT NULL DEFAULT 0) ENGINE=InnoDB",
		"INSERT INTO "+name+".work SELECT seq, 0 FROM seq_1_to_100")
	dsn := mariaDSN(t, name)
	u := strings.TrimPrefix(dsn, "mysql://")
	userHost, _, _ := strings.Cut(u, "/")
	user, hostPort, _ := strings.Cut(userHost, "@")
	host, port, _ := strings.Cut(hostPort, ":")
	cmd := []string{"--", "sh", "-c", client + ` -u"$1" -h"$2" -P"$3" "$4" -e 'update work set n = n + 1'`, "sh", user, host, port, name}
	dir := t.TempDir()
	m1 := mkdir(t, filepath.Join(dir, "m1"))
	write(t, m1, "0001_init.up.sql", "CREATE TABLE IF NOT EXISTS jobs (id int PRIMARY KEY, state varchar(20), touched int);")
	write(t, m1, "0001_init.down.sql", "DROP TABLE IF EXISTS jobs;")
	m2 := mkdir(t, filepath.Join(dir, "m2"))
	up2 := write(t, m2, "0002_idx.up.sql", "CREATE INDEX work_n ON work (n);")
	write(t, m2, "0002_idx.down.sql", "DROP INDEX work_n ON work;\nDROP TABLE jobs;")
	m3 := mkdir(t, filepath.Join(dir, "m3"))
	up3 := write(t, m3, "0003_open.up.sql", "START TRANSACTION;\nUPDATE jobs SET touched = 99 WHERE id <= 10;")
	write(t, m3, "0003_open.down.sql", "UPDATE jobs SET touched = 0 WHERE id <= 10;")
	orig := mariaSafetyState(t, db, name)
	for _, c := range []struct {
		name string
		args []string
		exit int
		want string
	}{
		{"a no-op up's down file", []string{"--migration", m1}, check.ExitPass, "changed nothing check can see"},
		{"a down that drops a table there before", []string{"--migration", up2}, check.ExitNotAsItWas, "DROP TABLE jobs: it would drop or empty jobs"},
		{"START TRANSACTION without COMMIT", []string{"--migration", up3}, check.ExitBadInput, "inside an open transaction"},
	} {
		out, _, err := run(t, append(append([]string{"check", "-q", "--in-place", "--report-only", "--dsn", dsn, "--format", "json"}, c.args...), cmd...)...)
		text := out
		if err != nil {
			text += err.Error()
		}
		if exitCode(err) != c.exit || !strings.Contains(text, c.want) {
			t.Errorf("%s: exit %d (want %d), want %q in:\n%.3000s", c.name, exitCode(err), c.exit, c.want, text)
		}
		if now := mariaSafetyState(t, db, name); now != orig {
			t.Fatalf("%s: the database changed:\n--- before\n%s\n--- after\n%s", c.name, orig, now)
		}
	}
}
