package measure_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/internal/testing/pgmatrix"
	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/pgembed"
	"github.com/writeamp/writeamp/result"
)

// samplerClause is what the moved-updates warning adds on PostgreSQL 13
// when writeamp's wait sampler read pg_stat_activity in the window.
const samplerClause = "on PostgreSQL 13 writeamp's wait sampler, which read pg_stat_activity"

// horizonWindow runs n bumps of one wide row (hotUpdates' table: eight
// versions to a page, so every eighth update is HOT only if the page can be
// pruned) in a window watched by the wait samplers, and returns the run and
// the table's name in its warnings.
func horizonWindow(t *testing.T, db *sql.DB, s dialects.Server, schema string, n int) (*result.Run, string) {
	t.Helper()
	for _, q := range []string{`DROP SCHEMA IF EXISTS ` + schema + ` CASCADE`, `CREATE SCHEMA ` + schema,
		`CREATE TABLE ` + schema + `.t (id int PRIMARY KEY, v int, pad text) WITH (fillfactor = 100, autovacuum_enabled = off)`,
		`INSERT INTO ` + schema + `.t VALUES (1, 0, repeat('x', 960))`} {
		mustExec(t, db, q)
	}
	t.Cleanup(func() { db.Exec(`DROP SCHEMA IF EXISTS ` + schema + ` CASCADE`) })
	bump := &bumpWorkload{schema: schema, table: schema + ".t", n: n, started: make(chan struct{})}
	w := window(t, db, s)
	w.Observers = append(w.Observers, &measure.Waits{})
	res, err := (&measure.Experiment{Window: w, Workload: bump, Variants: []string{"one"}}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return &res.Runs[0], schema + ".t"
}

// movedWarning is the run's warning about table's updates that moved page.
func movedWarning(run *result.Run, table string) string {
	for _, w := range run.Warnings {
		if strings.HasPrefix(w, table+": ") && strings.Contains(w, "moved the row to another page") {
			return w
		}
	}
	return ""
}

// On PostgreSQL 13 a snapshot held in another database (here a REPEATABLE
// READ transaction in postgres, for the whole window) keeps the measured
// table's pages from being pruned, so updates move to other pages. The
// report cannot tell who held the horizon; writeamp's own wait sampler is
// one who can, and the warning must name it and --waits=false, beside the
// per-share note the sampler puts on 13's wait figures. (Before, the
// warning said only "other open transactions".)
func TestPostgres13WarningNamesTheWaitSampler(t *testing.T) {
	t.Parallel()
	srv := pgmatrix.Start(t, 13)
	db, s := openPG(t, srv.DSN)
	other, err := sql.Open("pgx", strings.Replace(srv.DSN, "dbname="+pgembed.Database, "dbname=postgres", 1))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	holder, err := other.BeginTx(context.Background(), &sql.TxOptions{Isolation: sql.LevelRepeatableRead})
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback()
	var one int
	if err := holder.QueryRow(`SELECT 1`).Scan(&one); err != nil { // takes the snapshot
		t.Fatal(err)
	}
	const n = 100
	run, table := horizonWindow(t, db, s, "hz13", n)
	tb := run.Table("t")
	upd, hot, moved := metric(t, tb, "rows_updated").V(), metric(t, tb, "hot_updates").V(), metric(t, tb, "newpage_updates").V()
	w := movedWarning(run, table)
	t.Logf("PostgreSQL %s: %v updates, %v HOT, %v moved to another page; warning: %s", s.Version, upd, hot, moved, w)
	if upd != n || moved < 1 || upd-hot != moved {
		t.Fatalf("with a snapshot held in another database: %v updates, %v HOT, %v moved; want %d, every non-HOT one moved", upd, hot, moved, n)
	}
	if !strings.Contains(w, "other open transactions still needed") || !strings.Contains(w, samplerClause) || !strings.Contains(w, "--waits=false avoids it") {
		t.Errorf("the warning does not name the wait sampler as a possible holder of 13's horizon: %q (warnings %q)", w, run.Warnings)
	}
	share := run.Database["wait_samples"]
	if !share.OK() || !strings.Contains(share.Note, "on PostgreSQL 13 each reading's snapshot, though taken in another database, holds back the cluster-wide pruning horizon") {
		t.Errorf("the sampler's figures lack 13's note: %+v", share)
	}
}

// samplerHorizonWindow13 is the effect matrixSamplerHorizon measures, seen
// through a window: the sampler at its budget instead of back to back.
// An update the horizon cost moved to another page, or stayed on a page
// marked full (non-HOT updates are at least the moved ones), at most one in
// eight can (the page holds eight versions), and when any moved, the report's warning counts them and names
// the sampler. It is not held to what the back-to-back sampler cost
// (backToBack, logged): which updates lose HOT depends on whether a
// reading's snapshot overlaps the prune an update needs, so on a loaded
// machine the budgeted sampler has cost 13 where back to back cost 0.
func samplerHorizonWindow13(t *testing.T, db *sql.DB, s dialects.Server, n int, backToBack float64) {
	run, table := horizonWindow(t, db, s, "hzw", n)
	tb := run.Table("t")
	upd, hot, moved := metric(t, tb, "rows_updated").V(), metric(t, tb, "hot_updates").V(), metric(t, tb, "newpage_updates").V()
	w := movedWarning(run, table)
	t.Logf("PostgreSQL %s, sampler at its budget (%v readings): %v of %v updates not HOT, %v moved; back to back %v", s.Version, run.Database["wait_samples"].V(), upd-hot, upd, moved, backToBack)
	// A lost HOT update is a page move, or stays on its page: 13's
	// heap_update skips the HOT check on a page carrying the PD_PAGE_FULL
	// hint, even where pruning then makes room (heapam.c).
	if upd != float64(n) || moved > upd-hot || upd-hot > float64(n)/8+1 {
		t.Errorf("%v updates, %v HOT, %v moved: want %d, no more moves than lost HOT updates, at most %d lost", upd, hot, moved, n, n/8+1)
	}
	if moved > 0 && (!strings.HasPrefix(w, fmt.Sprintf("%s: %.0f of its %.0f non-HOT updates moved", table, moved, upd-hot)) || !strings.Contains(w, samplerClause)) {
		t.Errorf("%v updates lost HOT, the warning says %q", moved, w)
	}
}
