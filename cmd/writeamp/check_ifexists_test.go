package main

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/internal/testing/mysqltest"
	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// ifExistsCase is one IF [NOT] EXISTS migration checked against a database
// prepared by setup: the check passes planning and leaves the catalog as
// it was (ran says whether its undo ran a DROP), or is refused before
// anything is applied (refused: what the message names).
type ifExistsCase struct {
	name, setup, migration string
	ran                    string // a statement the undo ran, or "" for none
	refused                string
}

// checkIfExists runs each case twice on the database, holding the catalog
// (catalog reads it) to what it was before the case's check.
func checkIfExists(t *testing.T, db *sql.DB, catalog func() string, common []string, work []string, cases []ifExistsCase) {
	t.Helper()
	dir := t.TempDir()
	for i, c := range cases {
		if c.setup != "" {
			if _, err := db.Exec(c.setup); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
		}
		m := write(t, dir, "m"+string(rune('a'+i))+".sql", c.migration)
		orig := catalog()
		for range 2 {
			out, _, err := run(t, append(append(append([]string{}, common...), "--migration", m), work...)...)
			now := catalog()
			if now != orig {
				t.Fatalf("%s: the catalog changed:\n--- before\n%s\n--- after\n%s", c.name, orig, now)
			}
			if c.refused != "" {
				if exitCode(err) != 2 || err == nil {
					t.Fatalf("%s: exit %d (%v), want refused (2)", c.name, exitCode(err), err)
				}
				for _, want := range []string{c.refused, "--down", "--clone", "--keep-migration", "nothing was applied"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("%s: the refusal lacks %q: %v", c.name, want, err)
					}
				}
				continue
			}
			if err != nil && exitCode(err) != 1 {
				t.Fatalf("%s: %v\n%s", c.name, err, out)
			}
			d := readCheck(t, out)
			if exitCode(err) == 2 || d.Restore.Method != "undo" || !d.Restore.Checked || len(d.Restore.Left) > 0 {
				t.Errorf("%s: exit %d (%v), restore %+v", c.name, exitCode(err), err, d.Restore)
			}
			ran := strings.Join(d.Restore.Ran, "; ")
			if c.ran == "" && ran != "" || c.ran != "" && !strings.Contains(strings.ToLower(ran), strings.ToLower(c.ran)) {
				t.Errorf("%s: the undo ran %q, want %q", c.name, ran, c.ran)
			}
		}
	}
}

// CREATE … IF NOT EXISTS of an object that is there does nothing, so check
// undoes nothing (the index stays); of a missing one it creates it, and
// check drops it. DROP … IF EXISTS of a missing object does nothing; of
// one that is there it drops it, so check refuses it before anything is
// applied, as any DROP. The catalog is as it was after each.
func TestCheckIfExistsOnPostgres(t *testing.T) {
	t.Parallel()
	psql := testenv.Tool(t, "psql")
	dsn := scratchDB(t, "wa_test_check_ifexists")
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`create table jobs (id int primary key, status text not null, touched_at int not null default 0);
insert into jobs select g, 'ready', 0 from generate_series(1, 200) g;
create table queue (id int primary key, status text, touched_at int not null default 0);
insert into queue select g, 'ready', 0 from generate_series(1, 200) g`); err != nil {
		t.Fatal(err)
	}
	common := []string{"check", "--in-place", "-q", "--dsn", dsn, "--format", "json", "--budget", "hot_ratio[queue]>=0"}
	work := []string{"--", psql, dsn, "-XAtq", "-v", "ON_ERROR_STOP=1", "-c", "update queue set touched_at = touched_at + 1 where id <= 100"}
	checkIfExists(t, db, func() string { return pgCatalog(t, db) }, common, work, []ifExistsCase{
		{name: "CREATE INDEX IF NOT EXISTS, missing", migration: "create index if not exists queue_touched on queue (touched_at);",
			ran: "DROP INDEX queue_touched"},
		{name: "ADD COLUMN IF NOT EXISTS, missing", migration: "alter table queue add column if not exists note text;",
			ran: "DROP note"},
		{name: "DROP TABLE IF EXISTS, missing", migration: "drop table if exists old_jobs;\ncreate index if not exists queue_touched on public.queue (touched_at);",
			ran: "DROP INDEX public.queue_touched"},
		{name: "CREATE INDEX IF NOT EXISTS, there", setup: "create index queue_touched on queue (touched_at)",
			migration: "create index if not exists queue_touched on queue (touched_at);\nalter table queue add column if not exists status text;"},
		{name: "DROP TABLE IF EXISTS, there", setup: "create table old_jobs (id int)",
			migration: "drop table if exists old_jobs;", refused: "relation old_jobs exists, so IF EXISTS drops it"},
	})
}

// The same on MariaDB, with its IF [NOT] EXISTS on indexes and columns.
func TestCheckIfExistsOnMariaDB(t *testing.T) {
	t.Parallel()
	client := testenv.Tool(t, "mariadb", "mysql")
	db, _ := mysqltest.Open(t)
	name := mysqltest.TempDatabase(t, db)
	mysqltest.Exec(t, db, "CREATE TABLE "+name+".jobs (id int PRIMARY KEY, state varchar(20), touched int) ENGINE=InnoDB",
		"INSERT INTO "+name+".jobs SELECT seq, 'new', 0 FROM seq_1_to_200")
	dsn := mariaDSN(t, name)
	u := strings.TrimPrefix(dsn, "mysql://")
	userHost, _, _ := strings.Cut(u, "/")
	user, hostPort, _ := strings.Cut(userHost, "@")
	host, port, _ := strings.Cut(hostPort, ":")
	work := []string{"--", "sh", "-c", client + ` -u"$1" -h"$2" -P"$3" "$4" -e 'update jobs set touched = touched + 1 where id <= 100'`, "sh", user, host, port, name}
	common := []string{"check", "--in-place", "-q", "--dsn", dsn, "--format", "json", "--budget", "log_bytes/op<=+1000%"}
	checkIfExists(t, db, func() string { return mariaCatalog(t, db, name) }, common, work, []ifExistsCase{
		{name: "CREATE INDEX IF NOT EXISTS, missing", migration: "create index if not exists jobs_touched on jobs (touched);",
			ran: "DROP INDEX `jobs_touched`"},
		{name: "ADD COLUMN IF NOT EXISTS, missing", migration: "alter table jobs add column if not exists note text;",
			ran: "DROP COLUMN `note`"},
		{name: "DROP TABLE IF EXISTS, missing", migration: "drop table if exists old_jobs;\nalter table jobs add index if not exists jobs_touched (touched);",
			ran: "DROP INDEX `jobs_touched`"},
		{name: "CREATE INDEX IF NOT EXISTS, there", setup: "CREATE INDEX jobs_touched ON " + name + ".jobs (touched)",
			migration: "create index if not exists jobs_touched on jobs (touched);\nalter table jobs add column if not exists state varchar(20);"},
		{name: "DROP TABLE IF EXISTS, there", setup: "CREATE TABLE " + name + ".old_jobs (id int)",
			migration: "drop table if exists old_jobs;", refused: "table old_jobs exists, so IF EXISTS drops it"},
	})
}
