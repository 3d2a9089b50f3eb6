package main

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/internal/testing/testenv"
	"github.com/writeamp/writeamp/result"
)

// run --vacuum over a sweep: every run, each level and each variant,
// carries the vacuum's figures (the acceptance check's shape), and what
// VACUUM removed follows the variant.
func TestRunVacuumOnEveryRunOfASweep(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, "WRITEAMP_TEST_PG_DSN")
	out := filepath.Join(t.TempDir(), "r.json")
	if _, _, err := run(t, "run", "-q", "--dsn", dsn, "--logins", "40", "--refreshes-per-login", "3", "--concurrency", "1,2", "--vacuum", "--format", "json", "--output", out); err != nil {
		t.Fatal(err)
	}
	r, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Runs) != 4 {
		t.Fatalf("%d runs, want 2 variants x 2 levels", len(r.Runs))
	}
	removedBy := map[string]float64{}
	for _, run := range r.Runs {
		if m := run.Database["vacuum_log_bytes"]; !m.OK() || m.V() <= 0 {
			t.Errorf("%s: vacuum_log_bytes %+v", run.Label, m)
		}
		if _, ok := run.PerOperation["refresh"]["vacuum_log_bytes"]; !ok {
			t.Errorf("%s: no vacuum_log_bytes per refresh", run.Label)
		}
		us := run.Table("offline_user_session")
		if us == nil || !us.Metrics["vacuum_pages_scanned"].OK() || !us.Metrics["vacuum_dead_items_removed"].OK() {
			t.Fatalf("%s: the session table has no vacuum figures", run.Label)
		}
		ix := run.Index("idx_user_session_expiration_last_refresh")
		removed := ix.Metrics["vacuum_index_entries_removed"]
		if removed.Exactness != result.Exact {
			t.Errorf("%s: index entries removed %+v", run.Label, removed)
		}
		// Each non-HOT update and each delete left a dead entry in this
		// small index (too small for on-the-fly deletion to have run):
		// all of baseline's updates, none of coarse's at one worker.
		want := us.Metrics["rows_updated"].V() - us.Metrics["hot_updates"].V() + us.Metrics["rows_deleted"].V()
		if removed.V() != want {
			t.Errorf("%s: %v entries removed from the expiration index, want %v (non-HOT updates and deletes)", run.Label, removed.V(), want)
		}
		// Whether a coarse refresh is HOT depends on its page's room, not
		// only on the indexes: the exact count above holds either way, and
		// coarse's dead entries stay far below baseline's.
		removedBy[fmt.Sprintf("%s c=%d", run.Variant, run.Concurrency)] = removed.V()
		for _, w := range run.Warnings {
			if strings.HasPrefix(w, "vacuum:") {
				t.Errorf("%s: %s", run.Label, w)
			}
		}
	}
	for _, c := range []int{1, 2} {
		b, co := removedBy[fmt.Sprintf("baseline c=%d", c)], removedBy[fmt.Sprintf("coarse c=%d", c)]
		if !(co*2 < b) {
			t.Errorf("at concurrency %d coarse left %v dead expiration-index entries and baseline %v: want coarse's far fewer", c, co, b)
		}
	}
}

// InnoDB has no VACUUM: --vacuum says so in every run, never silently.
func TestRunVacuumOnMariaDBSaysThereIsNone(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, "WRITEAMP_TEST_MYSQL_DSN")
	out := filepath.Join(t.TempDir(), "r.json")
	if _, _, err := run(t, "run", "-q", "--dsn", dsn, "--logins", "20", "--refreshes-per-login", "2", "--vacuum", "--format", "json", "--output", out); err != nil {
		t.Fatal(err)
	}
	r, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range r.Runs {
		said := false
		for _, w := range run.Warnings {
			said = said || strings.Contains(w, "--vacuum: InnoDB has no VACUUM")
		}
		if !said {
			t.Errorf("%s: no word that --vacuum has nothing to run: %v", run.Variant, run.Warnings)
		}
	}
}

// measure --vacuum: the wrapped command's dead rows in the scope's tables,
// vacuumed in a window of their own: one update of 300 rows on an indexed
// column leaves 300 entries for VACUUM to remove from that index.
func TestMeasureVacuumOfAWrappedCommand(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, "WRITEAMP_TEST_PG_DSN")
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	// Cleanups run last first: the schema is dropped before db closes.
	t.Cleanup(func() { db.Close() })
	testenv.Reachable(t, db, "PostgreSQL")
	for _, q := range []string{`DROP SCHEMA IF EXISTS wa_vac CASCADE`, `CREATE SCHEMA wa_vac`,
		`CREATE TABLE wa_vac.jobs (id int PRIMARY KEY, v int) WITH (autovacuum_enabled = false)`, `CREATE INDEX jobs_v ON wa_vac.jobs (v)`,
		`INSERT INTO wa_vac.jobs SELECT g, g FROM generate_series(1, 300) g`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(q, err)
		}
	}
	t.Cleanup(func() {
		if _, err := db.Exec(`DROP SCHEMA IF EXISTS wa_vac CASCADE`); err != nil {
			t.Errorf("drop wa_vac: %v", err)
		}
	})
	out := filepath.Join(t.TempDir(), "m.json")
	if _, _, err := run(t, "measure", "-q", "--dsn", dsn, "--schema", "wa_vac", "--vacuum", "--format", "json", "-o", out,
		"--", "psql", dsn, "-Xqc", "UPDATE wa_vac.jobs SET v = v + 1000"); err != nil {
		t.Fatal(err)
	}
	r, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	run := r.Runs[0]
	for _, name := range []string{"jobs_v", "jobs_pkey"} {
		if got := run.Index(name).Metrics["vacuum_index_entries_removed"]; got.V() != 300 || got.Exactness != result.Exact {
			t.Errorf("%s: vacuum_index_entries_removed %+v, want exactly 300", name, got)
		}
	}
	if got := run.Table("jobs").Metrics["vacuum_dead_items_removed"]; got.V() != 300 {
		t.Errorf("jobs: vacuum_dead_items_removed %+v, want 300", got)
	}
}
