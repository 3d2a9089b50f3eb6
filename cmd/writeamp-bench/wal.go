package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/internal/testing/heappeak"
	"github.com/writeamp/writeamp/result"
)

var walReps = flag.Int("wal-reps", 3, "readings of the window per reader for the WAL read-rate rows (the best is kept)")

// walReadRate times reading one window's WAL three ways against
// pg_waldump --stats=record on the same LSN range: writeamp's decoder with
// the segments read from the local data directory, the same decoder with the
// segments read over the connection (pg_read_binary_file, as on a remote
// server), and pg_walinspect (for a login granted only its functions). The
// fifth reading is pg_walinspect's peer: pg_get_wal_records_info's own read
// of the window (SELECT count(*)), the least any reader through
// pg_walinspect pays (alone many times pg_waldump). It returns the records and
// bytes in the window and the five durations (best of -wal-reps, interleaved, so
// every reader reads from a warm page cache), and prints the decoder's peak
// heap while it reads.
func walReadRate(ctx context.Context, db *sql.DB, s dialects.Server, rows int) (int64, float64, [5]time.Duration, error) {
	var out [5]time.Duration
	waldump, err := exec.LookPath(fmt.Sprintf("/usr/lib/postgresql/%d/bin/pg_waldump", s.VersionNum/10000))
	if err != nil {
		return 0, 0, out, fmt.Errorf("no pg_waldump of PostgreSQL %d to compare with: %w", s.VersionNum/10000, err)
	}
	dataDir := s.Prop(pg.PropDataDirectory)
	if dataDir == "" {
		return 0, 0, out, fmt.Errorf("the data directory is not readable: pg_waldump needs it")
	}
	mustExec(db, `DROP TABLE IF EXISTS writeamp_bench_w`)
	mustExec(db, `CREATE TABLE writeamp_bench_w (id int PRIMARY KEY, v text, k int)`)
	mustExec(db, `CREATE INDEX ON writeamp_bench_w (k)`)
	defer mustExec(db, `DROP TABLE IF EXISTS writeamp_bench_w`)
	// A long window's WAL must outlive the checkpoints during it, for
	// pg_waldump as for the decoder.
	mustExec(db, `SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = 'writeamp_bench_wal'`)
	mustExec(db, `SELECT pg_create_physical_replication_slot('writeamp_bench_wal', true)`)
	defer mustExec(db, `SELECT pg_drop_replication_slot('writeamp_bench_wal')`)
	mustExec(db, `CREATE EXTENSION IF NOT EXISTS pg_walinspect`)
	defer mustExec(db, `DROP EXTENSION IF EXISTS pg_walinspect`)
	s, err = pg.Dialect{}.Probe(ctx, db) // with pg_walinspect installed
	if err != nil {
		return 0, 0, out, err
	}
	set, err := collectors.For(pg.Name)
	if err != nil {
		return 0, 0, out, err
	}
	sc := collectors.Scope{Tables: []string{"writeamp_bench_w"}}
	before, err := set.Take(ctx, db, s, sc)
	if err != nil {
		return 0, 0, out, err
	}
	mustExec(db, fmt.Sprintf(`INSERT INTO writeamp_bench_w SELECT g, md5(g::text), g %% 1000 FROM generate_series(1, %d) g`, rows))
	mustExec(db, `UPDATE writeamp_bench_w SET v = v || 'x' WHERE id % 3 = 0`)
	after, err := set.Take(ctx, db, s, sc)
	if err != nil {
		return 0, 0, out, err
	}
	start, end := before.Marks["wal_insert_lsn"], after.Marks["wal_insert_lsn"]
	var records int64
	var bytes float64
	if err := db.QueryRow(`SELECT sum(count), sum(combined_size) FROM pg_get_wal_stats($1, $2, false)`, start, end).Scan(&records, &bytes); err != nil {
		return 0, 0, out, err
	}
	remote := s
	remote.Props = map[string]string{}
	for k, v := range s.Props {
		remote.Props[k] = v
	}
	remote.SetProp(pg.PropDataDirectory, "")
	inspect := s
	inspect.Caps = map[string]bool{}
	for k, v := range s.Caps {
		inspect.Caps[k] = v
	}
	inspect.Set(pg.CapWALFiles, false, "")
	read := func(srv dialects.Server, want string) (time.Duration, error) {
		d, err := collectors.Diff(before, after)
		if err != nil {
			return 0, err
		}
		d.Server = srv
		// Over the connection, each reading gets connections of its own, as
		// a run's read does: a backend's malloc keeps what an earlier read
		// taught it (the reader's warm_reader_allocator, or a long read
		// before), and the best of readings on one pool measured that
		// backend, not a user's first.
		pool := db
		if want == "pg_read_binary_file" {
			// Connections as a run's at its default concurrency (1) wait,
			// the second reader's too (dialed during the read).
			var done func()
			if pool, done, err = openAsRun(ctx, 1); err != nil {
				return 0, err
			}
			defer done()
		}
		stop := peakHeap(want)
		t0 := time.Now()
		set.RunInterval(ctx, pool, d)
		el := time.Since(t0)
		stop()
		for k, m := range d.Values {
			if k.Metric == result.LeafInserts.Name && !strings.Contains(m.Source, want) {
				return 0, fmt.Errorf("read the WAL from %q, not %q", m.Source, want)
			}
		}
		return el, nil
	}
	for i := range out {
		out[i] = time.Hour
	}
	for rep := 0; rep < *walReps; rep++ {
		for i, f := range []func() (time.Duration, error){
			func() (time.Duration, error) { return read(s, "read from") },
			func() (time.Duration, error) { return read(remote, "pg_read_binary_file") },
			func() (time.Duration, error) { return read(inspect, "pg_walinspect") },
			func() (time.Duration, error) {
				t0 := time.Now()
				cmd := exec.Command(waldump, "--stats=record", "-p", filepath.Join(dataDir, "pg_wal"), "-s", start, "-e", end)
				var stderr strings.Builder
				cmd.Stderr = &stderr
				err := cmd.Run()
				if err != nil {
					err = fmt.Errorf("pg_waldump: %w: %s", err, stderr.String())
				}
				return time.Since(t0), err
			},
			func() (time.Duration, error) {
				t0 := time.Now()
				var n int64
				err := db.QueryRow(`SELECT count(*) FROM pg_get_wal_records_info($1, $2)`, start, end).Scan(&n)
				return time.Since(t0), err
			},
		} {
			d, err := f()
			if err != nil {
				return 0, 0, out, err
			}
			out[i] = min(out[i], d)
		}
	}
	return records, bytes, out, nil
}

// peakHeap samples the heap until the returned stop, which prints the
// peak above the heap before (the decoder's bounded-memory target).
func peakHeap(what string) (stop func()) {
	s := heappeak.Start()
	return func() {
		f := s.Stop()
		fmt.Fprintf(os.Stderr, "bench: WAL read %q: peak heap %.1f MiB above the %.1f MiB before, %.1f MiB allocated\n",
			what, float64(f.Peak)/(1<<20), float64(f.Base)/(1<<20), float64(f.Allocated)/(1<<20))
	}
}
