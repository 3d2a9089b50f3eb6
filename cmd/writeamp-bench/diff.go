package main

import (
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
)

// jqDiff is the peer: every counter of the second snapshot minus the
// first's, keyed by level/object/metric, the whole list printed. The first
// snapshot's counters become one object by from_entries: jq 1.6 copies the
// accumulator of a reduce, which made an equivalent reduce quadratic.
const jqDiff = `($a[0].snapshot.counters | map({key: "\(.level)/\(.object // "")/\(.metric)", value: (.value // 0)}) | from_entries) as $before
| [$b[0].snapshot.counters[] | "\(.level)/\(.object // "")/\(.metric)" as $k | {key: $k, delta: ((.value // 0) - ($before[$k] // 0))}]`

// diffRows time `writeamp diff a.json b.json` of two snapshots of 1k and
// 10k indexes (and 50k without -quick, where the memory target is held)
// against jq subtracting every counter. The snapshots are one real pair
// (writeamp snapshot before and after inserts into 100 indexes) scaled by
// copying its tables and indexes under new names and ids: creating 50k
// indexes takes the server many minutes, a file of them takes milliseconds,
// and diff reads only the file.
func diffRows(t *progressTable, db *sql.DB) {
	if _, err := exec.LookPath("jq"); err != nil {
		fmt.Println("diff rows skipped: jq is not installed (the peer); scripts/bench.sh installs it with apt-get where it can")
		return
	}
	dir, err := os.MkdirTemp("", "writeamp-bench-diff")
	if err != nil {
		fatal(err.Error())
	}
	defer os.RemoveAll(dir)
	before, after := realSnapshotPair(db, dir)
	sizes := []int{1000, 10000, 50000}
	if *quick {
		sizes = sizes[:2]
		fmt.Fprintln(os.Stderr, "bench: -quick: no 50k-index diff, so no peak-RSS row (its target is at 50k)")
	}
	for _, n := range sizes {
		a, b := filepath.Join(dir, fmt.Sprintf("a%d.json", n)), filepath.Join(dir, fmt.Sprintf("b%d.json", n))
		scaleSnapshot(before, a, n/100)
		scaleSnapshot(after, b, n/100)
		st, _ := os.Stat(a)
		pairs := 3
		var ratios, waCPU, jqCPU []float64
		var waRSS, jqRSS int64
		for i := 0; i < pairs; i++ {
			// ABBA: each pair sees the same moment of the machine.
			var w, j timed
			if i%2 == 0 {
				w, j = timeCmd(*binary, "diff", a, b), timeCmd("jq", "-n", "--slurpfile", "a", a, "--slurpfile", "b", b, jqDiff)
			} else {
				j, w = timeCmd("jq", "-n", "--slurpfile", "a", a, "--slurpfile", "b", b, jqDiff), timeCmd(*binary, "diff", a, b)
			}
			ratios = append(ratios, w.cpu.Seconds()/j.cpu.Seconds())
			waCPU, jqCPU = append(waCPU, w.cpu.Seconds()), append(jqCPU, j.cpu.Seconds())
			waRSS, jqRSS = max(waRSS, w.rssKiB), max(jqRSS, j.rssKiB)
		}
		sort.Float64s(ratios)
		mb := func(kib int64) string { return fmt.Sprintf("%.0f MB", float64(kib)*1024/1e6) }
		t.AppendSpreadRow(table.Row{fmt.Sprintf("writeamp diff a.json b.json, two %dk-index snapshots (%.0f MB each) vs jq subtracting every counter (keyed by level/object/metric), CPU user+sys, median of %d interleaved pairs", n/1000, float64(st.Size())/1e6, pairs),
			fmt.Sprintf("%.2f s CPU, peak RSS %s", median(waCPU), mb(waRSS)), fmt.Sprintf("jq %.2f s CPU, peak RSS %s", median(jqCPU), mb(jqRSS)), fmt.Sprintf("%.3f", median(ratios)), "<= 2"}, ratios)
		if n == 50000 {
			t.AppendRow(table.Row{"peak RSS of that 50k-index diff, MB (the largest of its runs)", mb(waRSS), "jq " + mb(jqRSS), fmt.Sprintf("%.0f", float64(waRSS)*1024/1e6), "<= 300 (MB)"})
		}
	}
}

type timed struct {
	cpu    time.Duration
	rssKiB int64
}

// timeCmd runs a command with its output discarded (both sides print their
// whole result) and returns its CPU time and peak RSS.
func timeCmd(name string, args ...string) timed {
	cmd := exec.Command(name, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		fatal(fmt.Sprintf("%s %s: %v", name, args[0], err))
	}
	done := make(chan int64)
	stop := make(chan struct{})
	go func() { done <- pollPeakRSS(cmd.Process.Pid, stop) }()
	err := cmd.Wait()
	close(stop)
	peak := <-done
	if err != nil {
		fatal(fmt.Sprintf("%s %s: %v\n%s", name, args[0], err, stderr.String()))
	}
	if peak == 0 { // too short to be read: ru_maxrss, at least this process's own peak
		peak = cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	}
	return timed{cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), peak}
}

// pollPeakRSS reads the process's own high-water mark (VmHWM, KiB) until
// stop and returns the highest it read. Not the ru_maxrss of the exited
// child: Linux counts there the parent's peak too (recorded when the child,
// which shares the parent's memory until then, execs), and this process held
// the scaled snapshots, so a writeamp diff's peak was reported at several
// times what /usr/bin/time saw. Only a peak in the last 5 ms before the exit is
// missed, and both sides hold their heap to the end.
func pollPeakRSS(pid int, stop <-chan struct{}) int64 {
	var peak int64
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		if data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
			for _, line := range strings.Split(string(data), "\n") {
				if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
					if kib, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64); err == nil {
						peak = max(peak, kib)
					}
				}
			}
		}
		select {
		case <-stop:
			return peak
		case <-tick.C:
		}
	}
}

// realSnapshotPair is `writeamp snapshot` of a throwaway schema of 10
// tables with 10 indexes each, before and after rows inserted into each
// (so every index counter moves), parsed for scaling.
func realSnapshotPair(db *sql.DB, dir string) (map[string]any, map[string]any) {
	const schema = "writeamp_bench_d"
	mustExec(db, "DROP SCHEMA IF EXISTS "+schema+" CASCADE")
	mustExec(db, "CREATE SCHEMA "+schema)
	defer mustExec(db, "DROP SCHEMA IF EXISTS "+schema+" CASCADE")
	var b strings.Builder
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&b, "CREATE TABLE %s.t%d (a int, b int, c int, d int, e int, f int, g int, h int, i int, j int);", schema, i)
		for _, col := range "abcdefghij" {
			fmt.Fprintf(&b, "CREATE INDEX ON %s.t%d (%c);", schema, i, col)
		}
	}
	mustExec(db, b.String())
	snap := func(name string) map[string]any {
		file := filepath.Join(dir, name)
		run(*binary, "snapshot", "-q", "--dsn", *dsn, "--schema", schema, "--hold-wal=false", "-o", file)
		data, err := os.ReadFile(file)
		if err != nil {
			fatal(err.Error())
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			fatal("snapshot file: " + err.Error())
		}
		return m
	}
	before := snap("before.json")
	for i := 0; i < 10; i++ {
		mustExec(db, fmt.Sprintf("INSERT INTO %s.t%d SELECT g, g, g, g, g, g, g, g, g, g FROM generate_series(1, 500) g", schema, i))
	}
	time.Sleep(time.Second) // the statistics flushed (snapshot also forces it where it can)
	return before, snap("after.json")
}

// scaleSnapshot writes the snapshot with its table and index counters and
// objects copied `copies` times: copy c renames each object with a _c<c>
// suffix and moves its id by c million, so every copy is a distinct
// object to diff, with the real counters' values and sources.
func scaleSnapshot(m map[string]any, file string, copies int) {
	s := m["snapshot"].(map[string]any)
	suffix := func(v any, c int) any {
		if str, ok := v.(string); ok && c > 0 {
			return str + "_c" + strconv.Itoa(c)
		}
		return v
	}
	shiftID := func(v any, c int) any {
		if str, ok := v.(string); ok && c > 0 {
			if n, err := strconv.ParseInt(str, 10, 64); err == nil {
				return strconv.FormatInt(n+int64(c)*1_000_000, 10)
			}
		}
		return v
	}
	copyAll := func(list []any, rename func(map[string]any, int)) []any {
		var out []any
		for _, x := range list {
			o := x.(map[string]any)
			if o["level"] != "table" && o["level"] != "index" {
				out = append(out, o)
				continue
			}
			for c := 0; c < copies; c++ {
				d := make(map[string]any, len(o))
				for k, v := range o {
					d[k] = v
				}
				rename(d, c)
				out = append(out, d)
			}
		}
		return out
	}
	scaled := map[string]any{}
	for k, v := range s {
		scaled[k] = v
	}
	scaled["counters"] = copyAll(s["counters"].([]any), func(d map[string]any, c int) {
		d["object"], d["identity"] = suffix(d["object"], c), shiftID(d["identity"], c)
	})
	scaled["objects"] = copyAll(s["objects"].([]any), func(d map[string]any, c int) {
		d["name"], d["id"] = suffix(d["name"], c), shiftID(d["id"], c)
		if _, ok := d["table"]; ok {
			d["table"] = suffix(d["table"], c)
		}
	})
	top := map[string]any{}
	for k, v := range m {
		top[k] = v
	}
	top["snapshot"] = scaled
	data, err := json.Marshal(top)
	if err != nil {
		fatal(err.Error())
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		fatal(err.Error())
	}
}
