package main

import (
	"database/sql"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// pgCatalog is the test's own reading of what a check may change, written
// apart from check's query so the two do not share a blind spot: every
// relation with its kind, every column with its type and default, every
// index and constraint definition, every function and type, and the
// extensions; then the rows of jobs, which no check may change either.
func pgCatalog(t *testing.T, db *sql.DB) string {
	t.Helper()
	rows, err := db.Query(`
select 'rel ' || c.oid::regclass::text || ' ' || c.relkind::text from pg_class c
 where c.relnamespace not in ('pg_catalog'::regnamespace, 'information_schema'::regnamespace, 'pg_toast'::regnamespace)
union all
select 'col ' || table_name || '.' || column_name || ' ' || data_type || ' ' || coalesce(column_default, '')
  from information_schema.columns where table_schema not in ('pg_catalog', 'information_schema')
union all
select 'idx ' || indexdef from pg_indexes where schemaname <> 'pg_catalog'
union all
select 'con ' || conname || ' ' || pg_get_constraintdef(oid) from pg_constraint where connamespace <> 'pg_catalog'::regnamespace
union all
select 'fn ' || oid::regprocedure::text from pg_proc where pronamespace not in ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)
union all
select 'type ' || oid::regtype::text from pg_type where typnamespace not in ('pg_catalog'::regnamespace, 'information_schema'::regnamespace, 'pg_toast'::regnamespace)
union all
select 'ext ' || extname from pg_extension
union all
select 'jobs ' || count(*) || ' ' || coalesce(sum(touched_at), 0) from jobs
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

type checkDoc struct {
	Check   string `json:"check"`
	Restore struct {
		Method   string   `json:"method"`
		How      string   `json:"how"`
		Checked  bool     `json:"catalog_compared"`
		Compared int      `json:"definitions_compared"`
		Left     []string `json:"left_behind"`
		Ran      []string `json:"ran"`
	} `json:"restore"`
	Budgets []struct {
		Unit   string `json:"unit"`
		Status string `json:"status"`
	} `json:"budgets"`
}

func readCheck(t *testing.T, out string) checkDoc {
	t.Helper()
	var d checkDoc
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("check --format json: %v\n%.2000s", err, out)
	}
	return d
}

// The same check twice in a row gives the same verdict and leaves the
// catalog (and the data of the user's table) exactly as it was, whichever
// way the migration is undone: the inverse check computes, a goose Down
// section, a NAME.down.sql beside it, --down; a migration check cannot
// undo is refused before anything is applied; --keep-migration keeps it.
func TestCheckLeavesPostgresAsItWas(t *testing.T) {
	t.Parallel()
	psql := testenv.Tool(t, "psql")
	dsn := privateScratchDB(t, "wa_test_check_restore")
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`create table jobs (id int primary key, status text not null, touched_at int not null default 0) with (fillfactor = 70);
insert into jobs select g, 'ready', 0 from generate_series(1, 300) g`); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// The workload writes only the table --schema creates: jobs, the user's
	// table, keeps its rows.
	base := write(t, dir, "base.sql", `create table queue (id int primary key, touched_at int not null default 0) with (fillfactor = 70);
insert into queue select g, 0 from generate_series(1, 300) g;`)
	work := []string{"--", psql, dsn, "-XAtq", "-v", "ON_ERROR_STOP=1", "-c", "update queue set touched_at = touched_at + 1 where id <= 300"}
	common := []string{"check", "--in-place", "-q", "--dsn", dsn, "--format", "json", "--budget", "hot_ratio[queue]>=0.9"}
	bad := write(t, dir, "bad.sql", "alter table queue add column note text;\ncreate index queue_touched on queue (touched_at);\ncreate table audit (id int);")
	goose := write(t, dir, "00002_touched.sql", "-- +goose Up\ncreate index queue_touched on queue (touched_at);\n-- +goose Down\ndrop index queue_touched;\n")
	updir := filepath.Join(dir, "migrate")
	up := write(t, mkdir(t, updir), "000002_touched.up.sql", "create index queue_touched on queue (touched_at);\nupdate queue set touched_at = 0;")
	write(t, updir, "000002_touched.down.sql", "drop index queue_touched;")
	data := write(t, dir, "data.sql", "alter table queue add column note text;\nupdate queue set note = 'x';\ncreate index queue_touched on queue (touched_at);")
	down := write(t, dir, "undo.sql", "drop index queue_touched;\nalter table queue drop column note;")
	orig := pgCatalog(t, db)
	for _, c := range []struct {
		name string
		args []string
		how  string
	}{
		{"the inverse check computes", []string{"--schema", base, "--migration", bad}, "by the inverse of its statements"},
		{"a goose Down section", []string{"--schema", base, "--migration", goose}, "by its goose Down section"},
		{"NAME.down.sql beside NAME.up.sql", []string{"--schema", base, "--migration", up}, "by its down file"},
		{"--down", []string{"--schema", base, "--migration", data, "--down", down}, "the migration by --down"},
	} {
		var verdicts []string
		for range 2 {
			out, _, err := run(t, append(append(append([]string{}, common...), c.args...), work...)...)
			d := readCheck(t, out)
			verdicts = append(verdicts, d.Check)
			if exitCode(err) != 1 || d.Restore.Method != "undo" || !d.Restore.Checked || len(d.Restore.Left) > 0 || !strings.Contains(d.Restore.How, c.how) {
				t.Errorf("%s: exit %d (%v), restore %+v", c.name, exitCode(err), err, d.Restore)
			}
			if now := pgCatalog(t, db); now != orig {
				t.Fatalf("%s: the catalog changed:\n--- before\n%s--- after\n%s", c.name, orig, now)
			}
		}
		if verdicts[0] != "fail" || verdicts[1] != "fail" {
			t.Errorf("%s: verdicts %v, want fail twice (the index on the updated column loses HOT)", c.name, verdicts)
		}
	}

	// --repeat 3: the migration is undone between the repetitions, each side
	// measured three times, the budgets judge the medians with the spread.
	out, _, runErr := run(t, append(append(append([]string{}, common...), "--schema", base, "--migration", bad, "--repeat", "3"), work...)...)
	var rep struct {
		Check       string `json:"check"`
		Repetitions struct {
			Before []json.RawMessage `json:"before"`
			After  []json.RawMessage `json:"after"`
		} `json:"repetitions"`
		Budgets []struct {
			Before      float64    `json:"before"`
			BeforeRange [2]float64 `json:"before_range"`
			AfterRange  [2]float64 `json:"after_range"`
		} `json:"budgets"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || exitCode(runErr) != 1 || rep.Check != "fail" || len(rep.Repetitions.Before) != 3 || len(rep.Repetitions.After) != 3 ||
		len(rep.Budgets) != 1 || rep.Budgets[0].BeforeRange[1] < rep.Budgets[0].Before || rep.Budgets[0].AfterRange[1] >= rep.Budgets[0].BeforeRange[0] {
		t.Errorf("--repeat 3: %v %+v\n%.1500s", runErr, rep, out)
	}
	if now := pgCatalog(t, db); now != orig {
		t.Fatalf("--repeat: the catalog changed:\n%s", now)
	}

	// A change check cannot undo is refused before anything is applied,
	// naming the three ways out. --schema creates queue, which the budget
	// names: a budget on an object neither the database nor the files name
	// is refused first, before the undo is planned.
	alter := write(t, dir, "alter.sql", "create index jobs_status on jobs (status);\nalter table jobs alter column touched_at type bigint;")
	_, _, err = run(t, append(append([]string{}, common...), append([]string{"--schema", base, "--migration", alter}, work...)...)...)
	if exitCode(err) != 2 || err == nil {
		t.Fatalf("an ALTER TYPE migration without --down: exit %d (%v), want 2", exitCode(err), err)
	}
	for _, want := range []string{"alter.sql line 2", "ALTER COLUMN … TYPE", "--down", "--clone", "--keep-migration", "nothing was applied"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal lacks %q: %v", want, err)
		}
	}
	if now := pgCatalog(t, db); now != orig {
		t.Fatalf("a refused check changed the catalog:\n%s", now)
	}

	// --keep-migration: the migration stays, as asked (no budget: measured
	// and reported only).
	keep := write(t, dir, "keep.sql", "create index jobs_status on jobs (status);")
	out, _, err = run(t, append(append([]string{}, common[:len(common)-2]...), append([]string{"--report-only", "--migration", keep, "--keep-migration"},
		"--", psql, dsn, "-XAtqc", "update jobs set touched_at = touched_at + 1 where id <= 10")...)...)
	if d := readCheck(t, out); exitCode(err) != 0 || d.Restore.Method != "kept" {
		t.Errorf("--keep-migration: exit %d (%v), restore %+v", exitCode(err), err, d.Restore)
	}
	var kept int
	db.QueryRow("select count(*) from pg_indexes where indexname = 'jobs_status'").Scan(&kept)
	if kept != 1 {
		t.Errorf("--keep-migration dropped the index (%d)", kept)
	}
}

func mkdir(t *testing.T, p string) string {
	t.Helper()
	if err := exec.Command("mkdir", "-p", p).Run(); err != nil {
		t.Fatal(err)
	}
	return p
}
