package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jedib0t/go-pretty/v6/table"

	"github.com/writeamp/writeamp/dialects"
)

// abRun is one variant of a default A/B run as its result JSON tells it:
// the rows each DML statement changed (Stats.Statements, the workload's own
// tally) and the operations.
type abRun struct {
	Variant    string           `json:"variant"`
	Operations map[string]int   `json:"operations"`
	Writes     []abWrite        `json:"writes"`
	Database   map[string]value `json:"database"`
}

type abWrite struct {
	Statement string `json:"statement"`
	Rows      int    `json:"rows"`
}

type value struct {
	Value float64 `json:"value"`
}

// rows is the rows the run's statement of that name changed: every DML
// statement of the workload expects exactly one row, so it is also how many
// times the statement ran.
func (r abRun) rows(stmt string) int {
	n := 0
	for _, w := range r.Writes {
		if w.Statement == stmt {
			n += w.Rows
		}
	}
	return n
}

// abRSS is the first A/B run's peak RSS, for the memory row (0: not run).
var abRSS int64

// cost is a side's wall time and CPU (user and system), in seconds.
type cost struct{ wall, user, sys float64 }

// childCPU is the user and system time of this process's children that
// have ended (pgbench, run one at a time).
func childCPU() (user, sys float64) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		fatal("getrusage: " + err.Error())
	}
	return time.Duration(ru.Utime.Nano()).Seconds(), time.Duration(ru.Stime.Nano()).Seconds()
}

// abRows are the A/B rows: the default `writeamp run` (both variants,
// concurrency 1) against pgbench sending the same statements in the same
// counts (abscript.go), in interleaved pairs (ABBA) so the machine's drift
// cancels; each ratio is the median of the pairs', their spread beside it:
// wall time, and system CPU (writeamp's process against pgbench's, the
// server's backends serving both alike).
func abRows(ctx context.Context, t *progressTable, db *sql.DB, srv dialects.Server) {
	logins, pairs := 1500, 3
	if *quick {
		logins, pairs = 300, 1
	}
	var was, peers []cost
	var tally string
	var runs []abRun
	for i := 0; i < pairs; i++ {
		var wa, peer cost
		if i%2 == 0 {
			wa, runs = writeampAB(logins)
			peer, tally = peerAB(ctx, db, srv, runs)
		} else {
			// The peer goes first with the previous run's counts: the
			// schedule is seeded, so the next run repeats them (checked).
			peer, tally = peerAB(ctx, db, srv, runs)
			var again []abRun
			wa, again = writeampAB(logins)
			if _, t2 := abTally(again); t2 != tally {
				fatal("the A/B's statement counts changed between runs: " + tally + " then " + t2)
			}
		}
		was, peers = append(was, wa), append(peers, peer)
	}
	fmt.Fprintln(os.Stderr, "bench: A/B peer statements: "+tally)
	abCostRows(t, logins, tally, was, peers)
}

// abCostRows are the wall and system-CPU rows of A/B pairs (was[i] and
// peers[i] one pair).
func abCostRows(t *progressTable, logins int, tally string, was, peers []cost) {
	wall := func(c cost) float64 { return c.wall }
	sys := func(c cost) float64 { return c.sys }
	user := func(c cost) float64 { return c.user }
	pick := func(cs []cost, f func(cost) float64) float64 {
		var v []float64
		for _, c := range cs {
			v = append(v, f(c))
		}
		return median(v)
	}
	ratios := func(f func(cost) float64) []float64 {
		var r []float64
		for i := range was {
			r = append(r, f(was[i])/f(peers[i]))
		}
		sort.Float64s(r)
		return r
	}
	walls, syss := ratios(wall), ratios(sys)
	n := len(walls)
	t.AppendSpreadRow(table.Row{fmt.Sprintf("A/B run (%d logins, both variants, concurrency 1) vs pgbench -M prepared sending the workload's own statements in its counts, %s (one pipeline per operation, a CHECKPOINT per variant as --checkpoint before does; not the expiration job's few batches), median of %d interleaved pairs", logins, tally, n),
		fmt.Sprintf("%.1f s", pick(was, wall)), fmt.Sprintf("pgbench %.1f s", pick(peers, wall)), fmt.Sprintf("%.3f", median(walls)), "<= 1.2"}, walls)
	t.AppendSpreadRow(table.Row{fmt.Sprintf("the same A/B's system CPU (%d logins): the writeamp process's against pgbench's, median of %d pairs", logins, n),
		fmt.Sprintf("%.2f s (user %.2f s)", pick(was, sys), pick(was, user)), fmt.Sprintf("pgbench %.2f s (user %.2f s)", pick(peers, sys), pick(peers, user)), fmt.Sprintf("%.3f", median(syss)), "<= 1.2"}, syss)
}

// writeampAB runs the default A/B at concurrency 1 and returns its wall
// time and CPU and each variant's tally; it records the process's peak RSS.
func writeampAB(logins int) (cost, []abRun) {
	c, runs, rss := writeampRun(logins)
	if abRSS == 0 {
		abRSS = rss
	}
	return c, runs
}

// writeampRun is one `writeamp run` of the default A/B: wall seconds and
// the process's CPU, the runs of its result and the peak RSS (KiB).
func writeampRun(logins int) (cost, []abRun, int64) {
	out := filepath.Join(os.TempDir(), "writeamp-bench-run.json")
	defer os.Remove(out)
	cmd := exec.Command(*binary, "run", "-q", "--dsn", *dsn, "--concurrency", "1", "--logins", strconv.Itoa(logins), "--format", "json", "-o", out)
	var output strings.Builder
	cmd.Stdout, cmd.Stderr = &output, &output
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		fatal(fmt.Sprintf("writeamp run: %v", err))
	}
	// The child's own VmHWM: its ru_maxrss would count this process's peak
	// too (see pollPeakRSS).
	stop, done := make(chan struct{}), make(chan int64)
	go func() { done <- pollPeakRSS(cmd.Process.Pid, stop) }()
	err := cmd.Wait()
	secs := time.Since(t0).Seconds()
	close(stop)
	rss := <-done
	if err != nil {
		fatal(fmt.Sprintf("writeamp run: %v\n%s", err, output.String()))
	}
	if rss == 0 {
		rss = cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB on Linux
	}
	var r struct {
		Runs []abRun `json:"runs"`
	}
	data, _ := os.ReadFile(out)
	if err := json.Unmarshal(data, &r); err != nil || len(r.Runs) == 0 {
		fatal("cannot read the run's result")
	}
	return cost{wall: secs, user: cmd.ProcessState.UserTime().Seconds(), sys: cmd.ProcessState.SystemTime().Seconds()}, r.Runs, rss
}

// memoryRow is run's peak RSS at 10x the A/B's logins against the A/B's,
// and that run's wall time and system CPU against pgbench on its
// statements (one pair: the run takes minutes).
func memoryRow(ctx context.Context, t *progressTable, db *sql.DB, srv dialects.Server) {
	base := 1500
	if *quick {
		base = 300
	}
	if abRSS == 0 {
		_, _, abRSS = writeampRun(base)
	}
	wa, runs, rss10 := writeampRun(10 * base)
	t.AppendRow(table.Row{fmt.Sprintf("peak memory, %d vs %d logins", 10*base, base), fmt.Sprintf("%d MiB", rss10>>10), fmt.Sprintf("%d MiB", abRSS>>10), fmt.Sprintf("%.3f", float64(rss10)/float64(abRSS)), "<= 1.2 (flat)"})
	peer, tally := peerAB(ctx, db, srv, runs)
	fmt.Fprintln(os.Stderr, "bench: A/B peer statements at 10x the logins: "+tally)
	abCostRows(t, 10*base, tally, []cost{wa}, []cost{peer})
}
