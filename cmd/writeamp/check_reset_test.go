package main

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// A counter reset inside a window (here pg_stat_reset() by the workload; a
// restart or a failover does the same to the server's counters) left the
// figures of what ran before it out, and the budget judged the rest: PASS
// on a migration never measured whole. That side is now "could not
// measure" (exit 2), and the user's table is as it was.
func TestCheckDoesNotJudgeAWindowWithAReset(t *testing.T) {
	t.Parallel()
	psql := testenv.Tool(t, "psql")
	dsn := scratchDB(t, "wa_test_check_reset")
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("create table jobs (id int primary key, v int); insert into jobs select g, 0 from generate_series(1, 300) g"); err != nil {
		t.Fatal(err)
	}
	mig := write(t, t.TempDir(), "m.sql", "create index jobs_v on jobs (v);\n")
	_, _, err = run(t, "check", "--in-place", "-q", "--dsn", dsn, "--migration", mig, "--budget", "log_bytes/op<=+1000%",
		"--", psql, dsn, "-XAtq", "-c", "update jobs set v = v + 1", "-c", "select pg_stat_reset()")
	if exitCode(err) != 2 || !strings.Contains(errText(err), "counters were reset during the window") {
		t.Fatalf("a reset inside the window: exit %d (%v), want 2 saying the counters were reset", exitCode(err), err)
	}
	var idx, n int
	db.QueryRow("select count(*) from pg_indexes where indexname = 'jobs_v'").Scan(&idx)
	db.QueryRow("select count(*) from jobs").Scan(&n)
	if idx != 0 || n != 300 {
		t.Errorf("after the refused check: index jobs_v present %d, %d rows (want 300)", idx, n)
	}
}
