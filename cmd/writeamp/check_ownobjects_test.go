package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/writeamp/writeamp/internal/testing/mysqltest"
	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// An ACCESS EXCLUSIVE lock held on a user table made check's own reads
// (its table list, catalog and checksums) wait as long as the lock was
// held; --lock-timeout bounded only the migration. Now the first read that
// waits gives up in time: exit 2, the blocker named, nothing applied.
func TestCheckOwnReadsBoundedByLockTimeoutOnPostgres(t *testing.T) {
	t.Parallel()
	psql := testenv.Tool(t, "psql")
	dsn := scratchDB(t, "wa_test_check_readlock")
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("create table jobs (id int primary key, v int); insert into jobs select g, 0 from generate_series(1, 500) g"); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	holder, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	var pid string
	if err := holder.QueryRowContext(ctx, "select pg_backend_pid()::text").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	tx, err := holder.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec("lock table jobs in access exclusive mode"); err != nil { // every read of jobs waits
		t.Fatal(err)
	}
	mig := write(t, t.TempDir(), "m.sql", "create index jobs_v on jobs (v);\n")
	args := []string{"check", "-q", "--dsn", dsn, "--lock-timeout", "2s", "--migration", mig, "--budget", "log_bytes/op<=+1000%"}
	args = append(args, inPlace(t)...)
	t0 := time.Now()
	_, _, err = run(t, append(args, "--", psql, dsn, "-Xq", "-c", "select 1")...)
	took := time.Since(t0)
	tx.Rollback()
	if exitCode(err) != 2 {
		t.Fatalf("exit %d (%v), want 2", exitCode(err), err)
	}
	t.Log(err)
	for _, want := range []string{"--lock-timeout 2s", "blocked by session " + pid, "lock table jobs"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q:\n%s", want, err)
		}
	}
	if took > 30*time.Second {
		t.Errorf("check took %v with --lock-timeout 2s", took)
	}
	var idx int
	db.QueryRow("select count(*) from pg_indexes where indexname = 'jobs_v'").Scan(&idx)
	var journals int
	db.QueryRow("select count(*) from pg_namespace where nspname like 'writeamp\\_undo\\_%'").Scan(&journals)
	if idx != 0 || journals != 0 {
		t.Errorf("after the timeout: index jobs_v present %d, undo journals %d (want none)", idx, journals)
	}
}

// writeamp's undo journal (writeamp_undo_<run>.plan, plan_pkey) was measured
// as a user table: it showed up in the runs, the budgets, JUnit and
// OpenMetrics. None of writeamp's objects may.
func TestCheckDoesNotMeasureItsOwnObjectsOnPostgres(t *testing.T) {
	t.Parallel()
	psql := testenv.Tool(t, "psql")
	dsn := scratchDB(t, "wa_test_check_own")
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("create table jobs (id int primary key, v int); insert into jobs select g, 0 from generate_series(1, 500) g"); err != nil {
		t.Fatal(err)
	}
	mig := write(t, t.TempDir(), "m.sql", "create index jobs_v on jobs (v);\n")
	noOwnObjects(t, dsn, mig, "leaf_inserts/op<=+1000%", psql, dsn, "-Xq", "-c", "update jobs set v = v + 1 where id <= 100")
}

func TestCheckDoesNotMeasureItsOwnObjectsOnMariaDB(t *testing.T) {
	t.Parallel()
	client := testenv.Tool(t, "mariadb", "mysql")
	db, _ := mysqltest.Open(t)
	name := mysqltest.TempDatabase(t, db)
	mysqltest.Exec(t, db, "CREATE TABLE "+name+".jobs (id int PRIMARY KEY, v int) ENGINE=InnoDB",
		"INSERT INTO "+name+".jobs SELECT seq, 0 FROM "+name+".seq_1_to_500")
	dsn := mariaDSN(t, name)
	u := strings.TrimPrefix(dsn, "mysql://")
	userHost, _, _ := strings.Cut(u, "/")
	user, hostPort, _ := strings.Cut(userHost, "@")
	host, port, _ := strings.Cut(hostPort, ":")
	mig := write(t, t.TempDir(), "m.sql", "create index jobs_v on jobs (v);\n")
	noOwnObjects(t, dsn, mig, "rows_updated<=+1000%", client, "-u"+user, "-h"+host, "-P"+port, name, "-e", "update jobs set v = v + 1 where id <= 100")
}

// noOwnObjects runs one check (in place when check can) writing the result
// JSON, JUnit and OpenMetrics, and fails on any writeamp object in them.
func noOwnObjects(t *testing.T, dsn, mig, objBudget string, command ...string) {
	t.Helper()
	dir := t.TempDir()
	res, junit, om := filepath.Join(dir, "r.json"), filepath.Join(dir, "j.xml"), filepath.Join(dir, "m.txt")
	args := []string{"check", "-q", "--dsn", dsn, "--migration", mig, "--budget", "log_bytes/op<=+1000%", "--budget", objBudget,
		"--format", "openmetrics", "-o", om, "--result", res, "--junit", junit}
	args = append(args, inPlace(t)...)
	if _, _, err := run(t, append(append(args, "--"), command...)...); err != nil && exitCode(err) > 1 {
		t.Fatalf("check: exit %d: %v", exitCode(err), err)
	}
	var doc struct {
		Runs []struct {
			Variant string
			Tables  []struct{ Schema, Name string }
			Indexes []struct{ Schema, Name, Table string }
		}
	}
	b, err := os.ReadFile(res)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	own := func(s string) bool {
		s = strings.ToLower(s)
		return strings.HasPrefix(s, "writeamp_undo_") || s == "writeamp_ledger" || s == "writeamp_owner" || s == "plan" || s == "plan_pkey"
	}
	seen := false
	for _, r := range doc.Runs {
		for _, x := range r.Tables {
			seen = seen || x.Name == "jobs"
			if own(x.Schema) || own(x.Name) {
				t.Errorf("%s run: writeamp's table %s.%s measured", r.Variant, x.Schema, x.Name)
			}
		}
		for _, x := range r.Indexes {
			if own(x.Schema) || own(x.Name) || own(x.Table) {
				t.Errorf("%s run: writeamp's index %s.%s measured", r.Variant, x.Schema, x.Name)
			}
		}
	}
	if !seen {
		t.Errorf("the user's table jobs is not in the result: the test measured nothing\n%s", b)
	}
	for _, f := range []string{junit, om} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.ToLower(string(b))
		if f == om && !strings.Contains(text, "jobs") {
			t.Errorf("%s names no object of the user's: the test checks nothing\n%s", filepath.Base(f), b)
		}
		for _, bad := range []string{"writeamp_undo", "\"plan\"", "plan_pkey", "writeamp_owner", "writeamp_ledger"} {
			if strings.Contains(text, bad) {
				t.Errorf("%s names writeamp's own %s", filepath.Base(f), bad)
			}
		}
	}
}
