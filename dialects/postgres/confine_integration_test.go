package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// The confined login the built-in workload's migration runs as, on a live
// server: every way out of the schema that a statement can try is refused
// by the server itself, what it makes outside is reported and dropped with
// it, and the user's table and the roles come through as they were. (The
// command line's end-to-end cases are in cmd/writeamp; these are the same
// login, statement by statement, without a whole check per statement.)
func TestConfinedLoginReachesOnlyItsSchema(t *testing.T) {
	ctx := context.Background()
	base := testenv.DSN(t, "WRITEAMP_TEST_PG_DSN")
	admin, err := Dialect{}.Open(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	testenv.Reachable(t, admin, "PostgreSQL")
	name := fmt.Sprintf("wa_confine_%d", os.Getpid())
	admin.Exec("DROP DATABASE IF EXISTS " + name)
	if _, err := admin.Exec("CREATE DATABASE " + name + " TEMPLATE template0"); err != nil {
		t.Fatal(err)
	}
	defer admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
	dsn := WithDatabase(base, name)
	db, err := Dialect{}.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const schema = "writeamp_rt_confine_baseline"
	for _, q := range []string{
		"CREATE TABLE public.accounts (id int PRIMARY KEY, status text)",
		"INSERT INTO public.accounts SELECT g, 'a' FROM generate_series(1, 50) g",
		"CREATE SEQUENCE public.ids",
		"CREATE SCHEMA " + schema,
		"CREATE TABLE " + schema + ".offline_user_session (id int PRIMARY KEY, user_id text)",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Dialect{}.Probe(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	state := func() string {
		var st string
		if err := db.QueryRow(`SELECT (SELECT md5(string_agg(a::text, ',' ORDER BY id)) FROM public.accounts a)
  || ' ' || (SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace)
  || ' ' || (SELECT count(*) FROM pg_trigger WHERE NOT tgisinternal)
  || ' ' || (SELECT last_value FROM public.ids)
  || ' ' || (SELECT count(*) FROM pg_largeobject_metadata)
  || ' ' || (SELECT count(*) FROM pg_roles WHERE rolname LIKE 'writeamp\_mig\_%')`).Scan(&st); err != nil {
			t.Fatal(err)
		}
		return st
	}
	orig := state()
	open := func(ctx context.Context, user, password, database string) (*sql.DB, error) {
		return Dialect{}.OpenAs(ctx, dsn, user, password, database)
	}
	confine := func() *dialects.Confined {
		t.Helper()
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		c, err := Dialect{}.Confine(ctx, conn, s, schema, open)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := confine()
	for _, r := range []struct{ sql, want string }{
		{"UPDATE accounts SET status = 'x'", `relation "accounts" does not exist`},
		{"UPDATE public.accounts SET status = 'x'", "permission denied for table accounts"},
		{"DELETE FROM public.accounts", "permission denied for table accounts"},
		{"TRUNCATE public.accounts", "permission denied for table accounts"},
		{"ALTER TABLE public.accounts ADD COLUMN x int", "must be owner of table accounts"},
		{"CREATE INDEX ON public.accounts (status)", "must be owner of table accounts"},
		{"DROP TABLE public.accounts", "must be owner of table accounts"},
		{"RESET ROLE", ""}, // allowed, and changes nothing: the session user is the confined login
		{"UPDATE public.accounts SET status = 'x'", "permission denied for table accounts"},
		{"SET ROLE postgres", "permission denied to set role"},
		{"SET SESSION AUTHORIZATION postgres", "permission denied to set session authorization"},
		{"DO $$ BEGIN EXECUTE 'UPDATE public.accounts SET status = ''x'''; END $$", "permission denied for table accounts"},
		{"CREATE FUNCTION wa_f() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$", ""},
		{"CREATE TRIGGER wa_t BEFORE UPDATE ON public.accounts FOR EACH ROW EXECUTE FUNCTION wa_f()", "permission denied for table accounts"},
		{"SELECT nextval('public.ids')", "permission denied for sequence ids"},
		{"CREATE SCHEMA wa_other", "permission denied for database"},
		{"CREATE DATABASE wa_other", "permission denied to create database"},
		{"CREATE ROLE wa_other", "permission denied to create role"},
		{"ALTER SYSTEM SET work_mem = '1MB'", "SQLSTATE 42501"}, // 13/14 and 15+ word it differently
		{"CREATE INDEX wa_user ON offline_user_session (user_id)", ""},
	} {
		_, err := c.Conn.ExecContext(ctx, r.sql)
		switch {
		case r.want == "" && err != nil:
			t.Errorf("%s: %v, want it to run inside the schema", r.sql, err)
		case r.want != "" && (err == nil || !strings.Contains(err.Error(), r.want)):
			t.Errorf("%s: %v, want %q", r.sql, err, r.want)
		}
	}
	if err := c.Release(ctx); err != nil {
		t.Fatalf("release: %v", err)
	}
	var owner string
	if err := db.QueryRow("SELECT tableowner FROM pg_tables WHERE schemaname = $1 AND tablename = 'offline_user_session'", schema).Scan(&owner); err != nil || owner != s.User {
		t.Errorf("the workload's table went back to %q (%v), want %s", owner, err, s.User)
	}
	if now := state(); now != orig {
		t.Fatalf("the database changed: %s -> %s", orig, now)
	}
	// What the login makes outside the schema (a large object, which any
	// login may create) is found by its ownership, dropped and reported.
	c = confine()
	if _, err := c.Conn.ExecContext(ctx, "SELECT lo_create(0)"); err != nil {
		t.Fatal(err)
	}
	if err := c.Release(ctx); !errors.Is(err, dialects.ErrOutside) || !strings.Contains(err.Error(), "large object") {
		t.Errorf("release after a large object: %v, want ErrOutside naming it", err)
	}
	if now := state(); now != orig {
		t.Fatalf("the database changed: %s -> %s", orig, now)
	}
}
