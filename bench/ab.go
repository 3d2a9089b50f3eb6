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

// abRows is the A/B row: the default `writeamp run` (both variants,
// concurrency 1) against pgbench sending the same statements in the same
// counts (abscript.go), in interleaved pairs (ABBA) so the machine's drift
// cancels; the ratio is the median of the pairs', their spread beside it.
func abRows(ctx context.Context, t *progressTable, db *sql.DB, srv dialects.Server) {
	logins, pairs := 1500, 3
	if *quick {
		logins, pairs = 300, 1
	}
	var ratios, was, peers []float64
	var tally string
	var runs []abRun
	for i := 0; i < pairs; i++ {
		var wa, peer float64
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
		was, peers, ratios = append(was, wa), append(peers, peer), append(ratios, wa/peer)
	}
	fmt.Fprintln(os.Stderr, "bench: A/B peer statements: "+tally)
	sort.Float64s(ratios)
	t.AppendRow(table.Row{fmt.Sprintf("A/B run (%d logins, both variants, concurrency 1) vs pgbench -M prepared sending the workload's own statements in its counts, %s (one pipeline per operation, a CHECKPOINT per variant as --checkpoint before does; not the expiration job's few batches), median of %d interleaved pairs (pairs %.2f / %.2f / %.2f min/median/max)", logins, tally, pairs, ratios[0], median(ratios), ratios[len(ratios)-1]),
		fmt.Sprintf("%.1f s", median(was)), fmt.Sprintf("pgbench %.1f s", median(peers)), fmt.Sprintf("%.2f", median(ratios)), "<= 1.2"})
}

// writeampAB runs the default A/B at concurrency 1 and returns its wall
// time and each variant's tally; it records the process's peak RSS.
func writeampAB(logins int) (float64, []abRun) {
	secs, runs, rss := writeampRun(logins)
	if abRSS == 0 {
		abRSS = rss
	}
	return secs, runs
}

// writeampRun is one `writeamp run` of the default A/B: wall seconds, the
// runs of its result and the peak RSS (KiB).
func writeampRun(logins int) (float64, []abRun, int64) {
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
	return secs, r.Runs, rss
}

// memoryRow is run's peak RSS at 10x the A/B's logins against the A/B's.
func memoryRow(t *progressTable) {
	base := 1500
	if *quick {
		base = 300
	}
	if abRSS == 0 {
		_, _, abRSS = writeampRun(base)
	}
	_, _, rss10 := writeampRun(10 * base)
	t.AppendRow(table.Row{fmt.Sprintf("peak memory, %d vs %d logins", 10*base, base), fmt.Sprintf("%d MiB", rss10>>10), fmt.Sprintf("%d MiB", abRSS>>10), fmt.Sprintf("%.2f", float64(rss10)/float64(abRSS)), "<= 1.2 (flat)"})
}
