package measure_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	pgcollect "github.com/writeamp/writeamp/collectors/postgres"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/queries"
)

// hotUpdates updates one wide row n times from one session and returns how
// many updates were not HOT. Each version is 1,004 bytes, eight to a page,
// leaving less than the tenth of the page that makes the next read prune
// it: every eighth update stays HOT only if the page's dead versions could
// be pruned.
func hotUpdates(t *testing.T, db *sql.DB, n int, table string, during func() func()) float64 {
	t.Helper()
	ctx := context.Background()
	for _, q := range []string{
		`DROP TABLE IF EXISTS ` + table,
		`CREATE TABLE ` + table + ` (id int PRIMARY KEY, v int, pad text) WITH (fillfactor = 100, autovacuum_enabled = off)`,
		`INSERT INTO ` + table + ` VALUES (1, 0, repeat('x', 960))`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	defer db.Exec(`DROP TABLE IF EXISTS ` + table)
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The commits need not wait for their flush: the test is about pages.
	if _, err := c.ExecContext(ctx, `SET synchronous_commit = off`); err != nil {
		t.Fatal(err)
	}
	stop := during()
	for i := 0; i < n; i++ {
		if _, err := c.ExecContext(ctx, `UPDATE `+table+` SET v = v + 1 WHERE id = 1`); err != nil {
			t.Fatal(err)
		}
	}
	stop()
	// 13/14 send a session's counts at a transaction's end at most every
	// 500 ms: one more statement after that.
	time.Sleep(550 * time.Millisecond)
	if _, err := c.ExecContext(ctx, `SELECT 1`); err != nil {
		t.Fatal(err)
	}
	var upd, hot float64
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if err := db.QueryRow(`SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = $1`, table).Scan(&upd, &hot); err != nil {
			t.Fatal(err)
		}
		if upd >= float64(n) || time.Now().After(deadline) {
			break
		}
	}
	if upd != float64(n) {
		t.Fatalf("%v updates counted, %d made", upd, n)
	}
	return upd - hot
}

// matrixSamplerHorizon measures the wait sampler's observer effect on the
// pruning horizon: its reading, a statement in another database, runs back
// to back (no budget: the worst case) while one session updates a row whose
// page must be pruned every eighth update. PostgreSQL 14+ compute the
// horizon per database, so not one update may leave the page; 13 computes
// it over the cluster (RecentGlobalXmin), and each reading's snapshot, seen
// as the sampler's backend_xmin in pg_stat_activity, holds it back. No
// statement reads pg_stat_activity without a snapshot, so on 13 the effect
// is bounded by the sampler's budget, not removed (with pg_wait_sampling
// too: its profile replaces the shares, but the pg_stat_activity loop still
// runs for the per-operation shares); --waits=false removes it. On 13 it is
// then measured through a window (samplerHorizonWindow13): the updates it
// cost are the warning's, which names the sampler. 15-18 are as 14.
func matrixSamplerHorizon(t *testing.T, dsn string, admin *sql.DB, s dialects.Server) {
	ctx := context.Background()
	// The matrix measures its server's postgres database, where the sampler
	// has no other database to read from: this measures a database of its
	// own, as a user's would be.
	if _, err := admin.Exec(`CREATE DATABASE wa_horizon TEMPLATE template0`); err != nil {
		t.Fatal(err)
	}
	defer admin.Exec(`DROP DATABASE wa_horizon WITH (FORCE)`)
	db, err := sql.Open("pgx", pg.WithDatabase(dsn, "wa_horizon"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s.Database = "wa_horizon"
	side, note, err := (pgcollect.PgStatActivity{}).OpenSampler(ctx, db, s)
	if err != nil || side == nil {
		t.Fatalf("no database of its own for the sampler: %v %s", err, note)
	}
	defer side.Close()
	read, err := queries.Get(pg.Name, "pg_stat_activity_sample", s.VersionNum)
	if err != nil {
		t.Fatal(err)
	}
	// backToBack reads as the sampler does until stopped, and returns the
	// sampler connection's pid and a stop that says how many readings ran.
	var readings int
	backToBack := func() (string, func()) {
		sc, err := side.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var pid string
		if err := sc.QueryRowContext(ctx, `SELECT pg_backend_pid()::text`).Scan(&pid); err != nil {
			t.Fatal(err)
		}
		done, finished := make(chan struct{}), make(chan struct{})
		readings = 0
		go func() {
			defer close(finished)
			for {
				select {
				case <-done:
					return
				default:
				}
				rows, err := sc.QueryContext(ctx, read, "", false, s.Database, true)
				if err != nil {
					t.Error(err)
					return
				}
				for rows.Next() {
				}
				rows.Close()
				readings++
			}
		}()
		return pid, func() { close(done); <-finished; sc.Close() }
	}
	const n = 1500
	off := hotUpdates(t, db, n, "horizon_off", func() func() { return func() {} })
	on := hotUpdates(t, db, n, "horizon_on", func() func() { _, stop := backToBack(); return stop })
	onReadings := readings
	// Apart from the updates (the poll's own snapshots would count on 13):
	// how often the sampler's connection holds a snapshot while it reads.
	pid, stop := backToBack()
	var polls, held int
	// A loaded machine schedules the two unevenly: poll until ten polls
	// saw it, at most 3 s.
	for deadline := time.Now().Add(3 * time.Second); held < 10 && time.Now().Before(deadline); polls++ {
		var xmin sql.NullString
		if err := db.QueryRow(`SELECT backend_xmin::text FROM pg_stat_activity WHERE pid = $1`, pid).Scan(&xmin); err != nil {
			t.Fatal(err)
		}
		if xmin.Valid {
			held++
		}
	}
	stop()
	t.Logf("PostgreSQL %s: %v of %d updates not HOT without the sampler, %v while it read back to back (%d readings); its backend_xmin was set in %d of %d polls", s.Version, off, n, on, onReadings, held, polls)
	if off != 0 {
		t.Errorf("%v of %d updates not HOT with nothing else running: the table does not test pruning", off, n)
	}
	if held == 0 {
		t.Errorf("the sampler's backend_xmin was never set in %d polls: its readings hold no snapshot?", polls)
	}
	if s.VersionNum >= 140000 && on != 0 {
		t.Errorf("%v of %d updates not HOT while the sampler read from another database: 14+ prune by the database's own horizon", on, n)
	}
	if !pg.PerDatabaseHorizon(s) {
		// Only every eighth update needs its page pruned.
		if on > n/8+1 {
			t.Errorf("%v of %d updates not HOT with the sampler back to back: more than the %d that needed pruning", on, n, n/8+1)
		}
		samplerHorizonWindow13(t, db, s, n, on)
	}
}
