package main

import (
	"database/sql"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/check"
	"github.com/writeamp/writeamp/internal/testing/mysqltest"
	"github.com/writeamp/writeamp/internal/testing/pgmatrix"
)

// confineCase is a migration for the built-in workload and what check must
// answer: hostile ones fail in the server (exit 2, naming what the server
// refused), the user's data as it was.
type confineCase struct {
	name, sql string
	exit      int
	want      string
}

// The built-in workload's migration runs as a login that owns only the
// workload's schema: statements that name the user's tables or create
// objects elsewhere fail in the server, and nothing of the user's database
// changes; an ordinary migration still passes. (Every other way out, RESET
// ROLE and dynamic SQL among them, is tried statement by statement on the
// same login in dialects/postgres.) On 13 PUBLIC
// may create in public: what the login made there is found by its
// ownership, dropped, and reported. No confined login is left behind.
func TestCheckBuiltinMigrationConfinedPostgres(t *testing.T) {
	t.Parallel()
	for _, major := range []int{13, 17} {
		t.Run(fmt.Sprint(major), func(t *testing.T) {
			t.Parallel()
			srv := pgmatrix.Start(t, major)
			admin, err := sql.Open("pgx", srv.DSN)
			if err != nil {
				t.Fatal(err)
			}
			defer admin.Close()
			if _, err := admin.Exec("CREATE DATABASE wa_confine"); err != nil {
				t.Fatal(err)
			}
			q := url.Values{"host": {srv.Dir}, "port": {fmt.Sprint(srv.Port)}, "sslmode": {"disable"}}
			dsn := (&url.URL{Scheme: "postgres", User: url.User("postgres"), Path: "/wa_confine", RawQuery: q.Encode()}).String()
			db, err := sql.Open("pgx", dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec(`create table accounts (id int primary key, v int, status text);
insert into accounts select g, g % 7, 'a' from generate_series(1, 500) g;
create table orders (id int primary key, account_id int);
insert into orders select g, g from generate_series(1, 300) g;`); err != nil {
				t.Fatal(err)
			}
			state := func() string {
				var s string
				if err := db.QueryRow(`select (select md5(string_agg(a::text, ',' order by id)) from accounts a) || ' ' || (select count(*) from orders)
  || ' ' || (select count(*) from pg_class where relnamespace = 'public'::regnamespace)
  || ' ' || (select count(*) from pg_largeobject_metadata)
  || ' ' || (select count(*) from pg_roles where rolname like 'writeamp%')
  || ' ' || (select count(*) from pg_namespace where nspname like 'writeamp%')`).Scan(&s); err != nil {
					t.Fatal(err)
				}
				return s
			}
			orig := state()
			// 13 holds only what differs there (PUBLIC may create in
			// public) and an ordinary migration: each case is a whole
			// check, and the rest is the same code on every major.
			cases := []confineCase{
				{"unqualified user table", "create index wa_x on offline_user_session (user_id);\nupdate accounts set status = 'pwned';", check.ExitBadInput, `relation "accounts" does not exist`},
				{"qualified user table", "delete from public.orders where id > 10;", check.ExitBadInput, "permission denied for table orders"},
				{"large object", "select lo_create(0);", check.ExitBadInput, "created outside the workload's schema: large object"},
				{"ordinary migration", "create index wa_user on offline_user_session (user_id);", check.ExitPass, "PASS"},
			}
			if major < 15 {
				cases = []confineCase{
					{"a table in public", "create table public.wa_planted (i int);", check.ExitBadInput, "created outside the workload's schema: table public.wa_planted"},
					{"ordinary migration", "create index wa_user on offline_user_session (user_id);", check.ExitPass, "PASS"},
				}
			} else {
				cases = append(cases, confineCase{"a table in public", "create table public.wa_planted (i int);", check.ExitBadInput, "permission denied for schema public"})
			}
			dir := t.TempDir()
			for i, c := range cases {
				m := write(t, dir, fmt.Sprintf("m%d.sql", i), c.sql)
				out, _, err := run(t, "check", "-q", "--dsn", dsn, "--migration", m, "--budget", "log_bytes/op<=+1000%", "--logins", "5", "--expiration-job=false")
				text := out
				if err != nil {
					text += err.Error()
				}
				if exitCode(err) != c.exit || !strings.Contains(text, c.want) {
					t.Errorf("%s: exit %d (want %d), want %q in:\n%.2000s", c.name, exitCode(err), c.exit, c.want, text)
				}
				if now := state(); now != orig {
					t.Fatalf("%s: the database changed: %s -> %s", c.name, orig, now)
				}
			}
		})
	}
}

// A login that may not create roles is told the GRANT before anything runs.
func TestCheckBuiltinNeedsCreateRole(t *testing.T) {
	t.Parallel()
	dsn, admin := privateServer(t, "wa_confine_grant")
	for _, s := range []string{"CREATE ROLE wa_plain LOGIN", "GRANT CREATE ON DATABASE wa_confine_grant TO wa_plain"} {
		if _, err := admin.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	u, _ := url.Parse(dsn)
	u.User = url.User("wa_plain")
	m := write(t, t.TempDir(), "m.sql", "create index wa_user on offline_user_session (user_id);")
	out, _, err := run(t, "check", "-q", "--dsn", u.String(), "--migration", m, "--budget", "log_bytes/op<=+1000%", "--logins", "10", "--expiration-job=false")
	text := out
	if err != nil {
		text += err.Error()
	}
	if exitCode(err) != check.ExitBadInput || !strings.Contains(text, `ALTER ROLE "wa_plain" CREATEROLE`) {
		t.Errorf("exit %d (want %d), want the GRANT in:\n%.2000s", exitCode(err), check.ExitBadInput, text)
	}
	var n int
	admin.QueryRow("select count(*) from pg_roles where rolname like 'writeamp%'").Scan(&n)
	if n != 0 {
		t.Errorf("%d confined logins left", n)
	}
}

// On MariaDB the migration runs as an account granted only the workload's
// database: another database's tables, a new database, and a database
// whose name the GRANT's wildcard would match are out of its reach.
func TestCheckBuiltinMigrationConfinedMariaDB(t *testing.T) {
	t.Parallel()
	db, _ := mysqltest.Open(t)
	name := mysqltest.TempDatabase(t, db)
	mysqltest.Exec(t, db, "CREATE TABLE "+name+".accounts (id int PRIMARY KEY, status varchar(20)) ENGINE=InnoDB",
		"INSERT INTO "+name+".accounts SELECT seq, 'a' FROM seq_1_to_200")
	dsn := mariaDSN(t, name)
	state := func() string {
		var n, sum, accts sql.NullString
		db.QueryRow("select count(*), sum(crc32(concat_ws(',', id, status))) from "+name+".accounts").Scan(&n, &sum)
		db.QueryRow("select count(*) from mysql.user where user like 'writeamp\\_mig\\_%'").Scan(&accts)
		return n.String + " " + sum.String + " accounts " + accts.String
	}
	orig := state()
	dir := t.TempDir()
	for i, c := range []confineCase{
		{"qualified user table", "update " + name + ".accounts set status = 'pwned';", check.ExitBadInput, "UPDATE command denied"},
		{"a table in the user's database", "create table " + name + ".planted (i int);", check.ExitBadInput, "CREATE command denied"},
		{"a new database", "create database wa_planted_" + name + ";", check.ExitBadInput, "Access denied"},
		{"ordinary migration", "create index wa_user on offline_user_session (user_id);", check.ExitPass, "PASS"},
		{"a grant to PUBLIC", "create index wa_user on offline_user_session (user_id);", check.ExitBadInput, "UPDATE on " + name + ".accounts (granted to PUBLIC)"},
	} {
		if strings.HasPrefix(c.name, "a grant to PUBLIC") {
			mysqltest.Exec(t, db, "GRANT UPDATE ON "+name+".accounts TO PUBLIC")
			defer db.Exec("REVOKE UPDATE ON " + name + ".accounts FROM PUBLIC")
		}
		m := write(t, dir, fmt.Sprintf("m%d.sql", i), c.sql)
		out, _, err := run(t, "check", "-q", "--dsn", dsn, "--migration", m, "--budget", "log_bytes/op<=+1000%", "--logins", "10", "--expiration-job=false")
		text := out
		if err != nil {
			text += err.Error()
		}
		if exitCode(err) != c.exit || !strings.Contains(text, c.want) {
			t.Errorf("%s: exit %d (want %d), want %q in:\n%.2000s", c.name, exitCode(err), c.exit, c.want, text)
		}
		if now := state(); now != orig {
			t.Fatalf("%s: the database changed: %s -> %s", c.name, orig, now)
		}
	}
}
