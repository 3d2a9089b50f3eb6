package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jedib0t/go-pretty/v6/table"

	"github.com/writeamp/writeamp/collectors"
	_ "github.com/writeamp/writeamp/collectors/postgres"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/internal/kernelwait"
	"github.com/writeamp/writeamp/workloads"
)

// updateRows are the driver's single-row UPDATE rate against pgbench's.
func updateRows(ctx context.Context, t *progressTable, db *sql.DB, srv dialects.Server) {
	for _, c := range []int{1, 2, 4} {
		wa, pgb := driverVsPgbench(ctx, db, srv, c)
		t.AppendRow(table.Row{fmt.Sprintf("single-row UPDATE rate, concurrency %d", c), fmt.Sprintf("%.0f/s", wa), fmt.Sprintf("pgbench %.0f/s", pgb), fmt.Sprintf("%.3f", wa/pgb), ">= 0.90"})
	}
}

// walRateRows are the WAL read rates against pg_waldump (bench/wal.go).
func walRateRows(ctx context.Context, t *progressTable, db *sql.DB, srv dialects.Server) {
	n, bytes, d, err := walReadRate(ctx, db, srv, *walRows)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench: WAL read rate not measured: "+err.Error())
		return
	}
	rate := func(d time.Duration) string { return fmt.Sprintf("%.0f k records/s", float64(n)/d.Seconds()/1000) }
	for i, what := range []string{"decoder, segments read from the data directory", "decoder, segments read with pg_read_binary_file"} {
		target := []string{"<= 1.5 (time)", "<= 3 (time)"}[i]
		t.AppendRow(table.Row{fmt.Sprintf("window's WAL read (%d records, %.0f MB): %s", n, bytes/1e6, what), rate(d[i]), "pg_waldump --stats=record " + rate(d[3]), fmt.Sprintf("%.3f", d[i].Seconds()/d[3].Seconds()), target})
	}
	// pg_walinspect's peer is its own function: pg_get_wal_records_info
	// alone reads many times slower than pg_waldump, so no reader through it
	// could meet a pg_waldump target. writeamp passes over the window twice
	// (the records by transaction and relation, then every block reference
	// for pages_touched), parsing text per record.
	t.AppendRow(table.Row{fmt.Sprintf("window's WAL read (%d records, %.0f MB): pg_walinspect (logins granted only its functions; %.0fx pg_waldump)", n, bytes/1e6, d[2].Seconds()/d[3].Seconds()), rate(d[2]),
		"pg_get_wal_records_info alone " + rate(d[4]), fmt.Sprintf("%.3f", d[2].Seconds()/d[4].Seconds()), "<= 6 (time: two passes)"})
}

// snapshotRow is the snapshot command's cost at n/10 and n indexes.
func snapshotRow(ctx context.Context, t *progressTable, db *sql.DB, srv dialects.Server) {
	small, large := snapshotCost(ctx, db, srv)
	t.AppendRow(table.Row{fmt.Sprintf("writeamp snapshot -o FILE (the command, its file written), %d vs %d indexes", *indexes, *indexes/10), fmt.Sprintf("%.0f ms", large.Seconds()*1000), fmt.Sprintf("%.0f ms", small.Seconds()*1000), fmt.Sprintf("%.1f", large.Seconds()/small.Seconds()), "<= 13 (linear: 10x)"})
}

// samplerRows are the interval sampler's cost (bench/timeline.go).
func samplerRows(ctx context.Context, t *progressTable, db *sql.DB, srv dialects.Server) {
	pairs, secs := 6, 5
	if *quick {
		pairs, secs = 2, 3
	}
	// Each sampler is measured with the other one off, so its row is its own cost.
	cost := timelineReadCost(ctx, db, srv)
	t.AppendRow(table.Row{"interval sampler: one reading's time, at the shortest --interval (1 s)", fmt.Sprintf("%.2f ms", float64(cost.Microseconds())/1000), "1 s", fmt.Sprintf("%.5f", cost.Seconds()), "<= 0.02"})
	w, wo, ratio, lo, hi := samplerOverhead(db, *dsn, pairs, secs, []string{"--waits=false", "--interval", "1s"}, []string{"--waits=false"})
	t.AppendNoisyRow(table.Row{fmt.Sprintf("pgbench -c 2 TPS under measure --interval 1s vs none, median of %d alternating pairs of %d s (their spread: the machine's noise)", pairs, secs), fmt.Sprintf("%.0f tps", w), fmt.Sprintf("without %.0f tps", wo), fmt.Sprintf("%.3f", ratio), ">= 0.98"}, lo, hi)
	// The wait sampler reads at most every collectors.Budget times a
	// reading's time: its share of its connection is reading / period.
	wcost := waitReadCost(ctx, db, srv)
	period := max(10*time.Millisecond, collectors.Budget*wcost)
	t.AppendRow(table.Row{fmt.Sprintf("wait sampler: one reading of pg_stat_activity (from another database), taken every %s (10 ms, or %dx a reading)", period.Round(100*time.Microsecond), collectors.Budget), fmt.Sprintf("%.2f ms", float64(wcost.Microseconds())/1000), period.Round(100 * time.Microsecond).String(), fmt.Sprintf("%.3f", wcost.Seconds()/period.Seconds()), "<= 0.02"})
	cpu, server, src := waitSamplerCPU(*dsn, 3*secs)
	fmt.Fprintln(os.Stderr, "bench: wait sampler under pgbench: "+src)
	t.AppendRow(table.Row{fmt.Sprintf("wait sampler's client CPU while pgbench -c 2 runs %d s (this process's CPU time / wall time)", 3*secs), fmt.Sprintf("%.2f%% of a core", 100*cpu), "1 core", fmt.Sprintf("%.4f", cpu), "<= 0.02"})
	// What the sampler takes from a workload that keeps every core busy is
	// its CPU, client and server side: the TPS it leaves is at least 1 -
	// that share of the machine. The TPS pairs below cannot resolve 2% on
	// a machine whose pgbench TPS moves by far more than that from one
	// second to the next.
	if server >= 0 {
		n := float64(runtime.NumCPU())
		t.AppendRow(table.Row{fmt.Sprintf("wait sampler's CPU, client + its server backend (/proc/PID/stat), as a share of this machine's %d cores while pgbench -c 2 runs %d s: the TPS left at least", runtime.NumCPU(), 3*secs),
			fmt.Sprintf("%.2f%% + %.2f%% of a core", 100*cpu, 100*server), fmt.Sprintf("%d cores", runtime.NumCPU()), fmt.Sprintf("%.4f", 1-(cpu+server)/n), ">= 0.98"})
	} else {
		fmt.Fprintln(os.Stderr, "bench: the wait sampler's server backend is not a process of this machine: its CPU row is left out")
	}
	w, wo, ratio, lo, hi = samplerOverhead(db, *dsn, pairs, secs, nil, []string{"--waits=false"})
	t.AppendNoisyRow(table.Row{fmt.Sprintf("pgbench -c 2 TPS under measure with the wait sampler (default) vs --waits=false, median of %d alternating pairs of %d s (their spread: the machine's noise)", pairs, secs), fmt.Sprintf("%.0f tps", w), fmt.Sprintf("without %.0f tps", wo), fmt.Sprintf("%.3f", ratio), ">= 0.98"}, lo, hi)
}

// driverVsPgbench runs the same single-row UPDATE through writeamp's
// execution path (pipelined transaction per operation, a latency histogram
// per worker, one connection per worker) and through pgbench.
func driverVsPgbench(ctx context.Context, db *sql.DB, s dialects.Server, c int) (float64, float64) {
	mustExec(db, `DROP TABLE IF EXISTS writeamp_bench_u`)
	mustExec(db, `CREATE TABLE writeamp_bench_u (id int PRIMARY KEY, v int, d text)`)
	mustExec(db, `INSERT INTO writeamp_bench_u SELECT g, 0, repeat('x', 300) FROM generate_series(1, 2000) g`)
	defer mustExec(db, `DROP TABLE IF EXISTS writeamp_bench_u`)
	const upd = `UPDATE writeamp_bench_u SET v = v + 1 WHERE id = $1`
	per := *updates / c
	workers, done, err := openAsRun(ctx, c)
	if err != nil {
		fatal(err.Error())
	}
	defer done()
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < c; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			conn, err := workers.Conn(ctx)
			if err != nil {
				fatal(err.Error())
			}
			defer conn.Close()
			h := workloads.NewHistogram()
			for i := 0; i < per; i++ {
				t0 := time.Now()
				if _, err := (pg.Dialect{}).Pipeline(ctx, conn, []dialects.Stmt{{SQL: upd, Args: []any{1 + (i*7919+w*104729)%2000}}}); err != nil {
					fatal(err.Error())
				}
				h.Record(time.Since(t0))
			}
		}(w)
	}
	wg.Wait()
	wa := float64(per*c) / time.Since(start).Seconds()
	script := filepath.Join(os.TempDir(), "writeamp-bench-u.sql")
	os.WriteFile(script, []byte("\\set id random(1, 2000)\nUPDATE writeamp_bench_u SET v = v + 1 WHERE id = :id;\n"), 0o644)
	defer os.Remove(script)
	t0 := time.Now()
	run("pgbench", "-n", "-c", strconv.Itoa(c), "-j", strconv.Itoa(c), "-t", strconv.Itoa(per), "-f", script, *dsn)
	return wa, float64(per*c) / time.Since(t0).Seconds()
}

// openAsRun opens a pool whose connections wait as `run`'s do at that
// concurrency, with its Ps (kernelwait.Plan): in the kernel where a P is
// spare. done closes the pool and restores the Ps.
func openAsRun(ctx context.Context, workers int) (*sql.DB, func(), error) {
	procs, wait := kernelwait.Plan(workers, runtime.NumCPU(), true)
	prev := runtime.GOMAXPROCS(procs)
	restore := func() { runtime.GOMAXPROCS(prev) }
	db, err := pg.Dialect{}.Open(ctx, *dsn, dialects.KernelWait(wait))
	if err != nil {
		restore()
		return nil, nil, err
	}
	return db, func() { db.Close(); restore() }, nil
}

// snapshotCost times one full snapshot with n/10 and n indexes in scope.
func snapshotCost(ctx context.Context, db *sql.DB, s dialects.Server) (time.Duration, time.Duration) {
	// Thousands of relations in one transaction exceed max_locks_per_transaction:
	// create and drop them 50 tables at a time.
	dropAll := func() {
		for t := 0; t < *indexes/10; t += 50 {
			var names []string
			for i := t; i < t+50; i++ {
				names = append(names, fmt.Sprintf("writeamp_bench_s.t%d", i))
			}
			db.Exec(`DROP TABLE IF EXISTS ` + strings.Join(names, ", "))
		}
		mustExec(db, `DROP SCHEMA IF EXISTS writeamp_bench_s CASCADE`)
	}
	dropAll()
	mustExec(db, `CREATE SCHEMA writeamp_bench_s`)
	defer dropAll()
	// The command a user runs, its file written: the in-process read alone
	// left out the encoding and the write.
	file := filepath.Join(os.TempDir(), "writeamp-bench-snapshot.json")
	defer os.Remove(file)
	measure := func() time.Duration {
		best := time.Hour
		for i := 0; i < 3; i++ {
			t0 := time.Now()
			run(*binary, "snapshot", "-q", "--dsn", *dsn, "--schema", "writeamp_bench_s", "--hold-wal=false", "-o", file)
			if d := time.Since(t0); d < best {
				best = d
			}
		}
		return best
	}
	create := func(from, to int) {
		var b strings.Builder
		for t := from; t < to; t++ {
			if t > from && t%50 == 0 {
				mustExec(db, b.String())
				b.Reset()
			}
			fmt.Fprintf(&b, "CREATE TABLE writeamp_bench_s.t%d (a int, b int, c int, d int, e int, f int, g int, h int, i int, j int);", t)
			for _, col := range "abcdefghij" {
				fmt.Fprintf(&b, "CREATE INDEX ON writeamp_bench_s.t%d (%c);", t, col)
			}
		}
		mustExec(db, b.String())
	}
	create(0, *indexes/100)
	small := measure()
	create(*indexes/100, *indexes/10)
	return small, measure()
}
