package main

import (
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/check"
	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// pgSafetyState is the test's own reading of what no check may change,
// written apart from check's queries: every relation with its kind,
// persistence, owner, privileges and comment, every column, index and
// constraint, RLS and policies, sequences' options, function bodies, the
// database's settings, and the rows of accounts (count and an md5 of all of
// them in key order).
func pgSafetyState(t *testing.T, db *sql.DB) string {
	t.Helper()
	rows, err := db.Query(`
select 'rel ' || c.oid::regclass::text || ' ' || c.relkind::text || ' ' || c.relpersistence::text || ' ' || pg_get_userbyid(c.relowner)
       || ' ' || coalesce(c.relacl::text, '-') || ' ' || c.relrowsecurity::text || ' ' || coalesce(obj_description(c.oid, 'pg_class'), '-')
  from pg_class c where c.relnamespace not in ('pg_catalog'::regnamespace, 'information_schema'::regnamespace, 'pg_toast'::regnamespace)
union all
select 'col ' || table_schema || '.' || table_name || '.' || column_name || ' ' || data_type || ' ' || coalesce(column_default, '')
  from information_schema.columns where table_schema not in ('pg_catalog', 'information_schema')
union all
select 'idx ' || indexdef from pg_indexes where schemaname <> 'pg_catalog'
union all
select 'con ' || conname || ' ' || pg_get_constraintdef(oid) from pg_constraint where connamespace <> 'pg_catalog'::regnamespace
union all
select 'pol ' || polname || ' ' || coalesce(pg_get_expr(polqual, polrelid), '') from pg_policy
union all
select 'seq ' || schemaname || '.' || sequencename || ' ' || increment_by || ' ' || max_value from pg_sequences
union all
select 'fn ' || p.oid::regprocedure::text || ' ' || md5(p.prosrc) from pg_proc p where pronamespace not in ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)
union all
select 'setting ' || array_to_string(setconfig, ',') from pg_db_role_setting
union all
select 'ns ' || nspname from pg_namespace where nspname not like 'pg\_%' and nspname <> 'information_schema'
union all
select 'accounts ' || count(*) || ' ' || coalesce(md5(string_agg(a::text, ',' order by id)), '') from accounts a
order by 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var s string
		rows.Scan(&s)
		b.WriteString(s + "\n")
	}
	return b.String()
}

// Every way a check used to lose or silently change the user's data on
// PostgreSQL, each with a user table (accounts, 2,000 rows) that must come
// out exactly as it went in (catalog and rows compared in the test), and
// the documented exit code: a no-op up whose down drops the table (down
// file, goose Down, --down DIR of migrations never applied), a SET
// search_path inside the migration, a down that also deletes rows, a down
// that leaves a comment and UNLOGGED behind, BEGIN without COMMIT. Each
// check is --in-place: the default measures -- COMMAND on a copy and
// undoes nothing on the database.
func TestCheckNeverLosesPostgresData(t *testing.T) {
	t.Parallel()
	psql := testenv.Tool(t, "psql")
	dsn := privateScratchDB(t, "wa_test_check_safety")
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`create table accounts (id int primary key, v int, status text);
insert into accounts select g, g % 7, 'a' from generate_series(1, 2000) g;
create table work (id int primary key, n int not null default 0);
insert into work select g, 0 from generate_series(1, 100) g;
create schema other;`); err != nil {
		t.Fatal(err)
	}
	// The workload writes work only: accounts is the user's data no check
	// may change.
	cmd := []string{"--", psql, dsn, "-XAtq", "-v", "ON_ERROR_STOP=1", "-c", "update work set n = n + 1"}
	dir := t.TempDir()
	orig := pgSafetyState(t, db)
	noop := "create table if not exists accounts (id int primary key, v int, status text);\n"
	m1 := mkdir(t, filepath.Join(dir, "m1"))
	write(t, m1, "0001_init.up.sql", noop)
	write(t, m1, "0001_init.down.sql", "drop table if exists accounts cascade;")
	goose := write(t, dir, "00001_init.sql", "-- +goose Up\n"+noop+"-- +goose Down\ndrop table accounts;\n")
	m3 := mkdir(t, filepath.Join(dir, "m3"))
	up3 := write(t, m3, "0002_work_n.up.sql", "create index work_n on work (n);")
	d3 := mkdir(t, filepath.Join(dir, "d3"))
	write(t, d3, "0001_init.down.sql", "drop table accounts;")
	write(t, d3, "0002_work_n.down.sql", "drop index work_n;")
	redirect := write(t, dir, "redirect.sql", "set search_path to other;\ncreate table accounts (id int);")
	m5 := mkdir(t, filepath.Join(dir, "m5"))
	up5 := write(t, m5, "0005_idx.up.sql", "create index work_n on work (n);")
	write(t, m5, "0005_idx.down.sql", "drop index work_n;\ndelete from accounts where id <= 10;")
	m6 := mkdir(t, filepath.Join(dir, "m6"))
	up6 := write(t, m6, "0006_meta.up.sql", "create index work_n on work (n);\ncomment on table accounts is 'audited';\nalter table accounts set unlogged;")
	write(t, m6, "0006_meta.down.sql", "drop index work_n;")
	open := write(t, dir, "open.sql", "begin;\ncreate index accounts_v on accounts (v);\n")
	for _, c := range []struct {
		name  string
		args  []string
		exit  int
		state string
		want  string
	}{
		{"a no-op up's down file", []string{"--migration", m1}, check.ExitPass, "as-it-was", "changed nothing check can see"},
		{"a no-op up's goose Down", []string{"--migration", goose}, check.ExitPass, "as-it-was", "changed nothing check can see"},
		{"--down DIR with the down of a migration not applied", []string{"--migration", up3, "--down", d3}, check.ExitPass, "as-it-was", "drop index work_n"},
		{"SET search_path inside the migration", []string{"--migration", redirect}, check.ExitPass, "as-it-was", "other.accounts"},
		{"a down that also deletes rows", []string{"--migration", up5}, check.ExitNotAsItWas, "refused", "the undo changed its rows"},
		{"a down that leaves a comment and UNLOGGED", []string{"--migration", up6}, check.ExitNotAsItWas, "refused", "persistence u"},
		{"BEGIN without COMMIT", []string{"--migration", open, "--down", write(t, dir, "open.down.sql", "drop index accounts_v;")}, check.ExitBadInput, "as-it-was", "inside an open transaction"},
	} {
		args := append(append([]string{"check", "-q", "--in-place", "--report-only", "--dsn", dsn, "--format", "json"}, c.args...), cmd...)
		out, _, err := run(t, args...)
		var state string
		var text string
		if err != nil {
			text = err.Error()
		}
		if out != "" {
			d := readCheck(t, out)
			text += strings.Join(d.Restore.Ran, "; ")
			var doc struct {
				Restore struct {
					State   string   `json:"state"`
					Refused []string `json:"refused"`
					NotRun  []string `json:"not_run"`
					Rows    []string `json:"rows_changed"`
				} `json:"restore"`
			}
			jsonInto(t, out, &doc)
			state = doc.Restore.State
			text += strings.Join(doc.Restore.Refused, "; ") + strings.Join(doc.Restore.NotRun, "; ") + strings.Join(doc.Restore.Rows, "; ")
		} else if strings.Contains(text, "restore: ") {
			state = "as-it-was"
			if strings.Contains(text, "NOT ") || strings.Contains(text, "REFUSED") {
				state = "not"
			}
		}
		if exitCode(err) != c.exit || state != c.state || !strings.Contains(text, c.want) {
			t.Errorf("%s: exit %d (want %d), restore %q (want %q), want %q in:\n%s", c.name, exitCode(err), c.exit, state, c.state, c.want, text)
		}
		if strings.Contains(c.name, "UNLOGGED") {
			// Left applied, as reported, with its record: clean lists it
			// (exit 1: for clean --drop), the next check tries to finish
			// that undo first but cannot prove it (the comment and UNLOGGED
			// stay), so it refuses to measure on top of it, and once it is
			// put back by hand clean --drop finds the catalog as recorded.
			if out, _, err := run(t, "clean", "--dsn", dsn); exitCode(err) != 1 || !strings.Contains(out, "pending") || !strings.Contains(out, "drop index work_n") {
				t.Errorf("clean after a refused undo: %v\n%s", err, out)
			}
			if _, _, err := run(t, append([]string{"check", "-q", "--in-place", "--report-only", "--dsn", dsn, "--migration", up3}, cmd...)...); exitCode(err) != check.ExitNotAsItWas ||
				!strings.Contains(err.Error(), "its undo could not be finished") || !strings.Contains(err.Error(), "clean --dsn … --drop") {
				t.Errorf("a check with an undo pending it cannot prove: exit %d (%v), want %d saying so and naming clean --drop", exitCode(err), err, check.ExitNotAsItWas)
			}
			db.Exec("drop index if exists work_n; comment on table accounts is null; alter table accounts set logged")
			if out, _, err := run(t, "clean", "--dsn", dsn, "--drop"); err != nil || !strings.Contains(out, "record dropped") {
				t.Errorf("clean --drop: %v\n%s", err, out)
			}
		}
		if now := pgSafetyState(t, db); now != orig {
			t.Fatalf("%s: the database changed:\n--- before\n%s--- after\n%s", c.name, orig, now)
		}
	}
}

func jsonInto(t *testing.T, out string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("check --format json: %v\n%.2000s", err, out)
	}
}
