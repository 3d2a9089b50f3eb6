package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/result"
)

// TestDiffOfFiftyThousandIndexesPeaksUnder300MB holds issue 28's target on
// the real binary (its memory limit is set from its input): two snapshots of
// 5,000 tables with 10 indexes each, shaped as PostgreSQL's (the same
// counters, sources and catalog entries). The whole process peaked at 700 to
// 830 MB before the diff kept one copy of the objects and set its limit.
func TestDiffOfFiftyThousandIndexesPeaksUnder300MB(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the peak RSS is read from Linux's /proc")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	writeBigSnapshot(t, a, start, start.Add(time.Hour), 0)
	writeBigSnapshot(t, b, start, start.Add(2*time.Hour), 500)
	cmd := exec.Command(bin, "diff", "-q", a, b)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOGC=") && !strings.HasPrefix(kv, "GOMEMLIMIT=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The child's own high-water mark, read while it runs: its ru_maxrss
	// counts this process's peak too (Linux records it when the child execs),
	// and this process built the snapshots.
	var peak int64
	exited := make(chan error)
	go func() { exited <- cmd.Wait() }()
	for done := false; !done; {
		select {
		case err := <-exited:
			if err != nil {
				t.Fatalf("diff: %v\n%s", err, stderr.String())
			}
			done = true
		case <-time.After(5 * time.Millisecond):
			peak = max(peak, vmHWM(cmd.Process.Pid))
		}
	}
	t.Logf("peak RSS %.0f MB", float64(peak)/1e6)
	if peak == 0 {
		t.Fatal("no VmHWM read from /proc while the diff ran")
	}
	if peak > 300e6 {
		t.Errorf("writeamp diff of two 50,000-index snapshots peaked at %.0f MB, want at most 300", float64(peak)/1e6)
	}
}

// writeBigSnapshot writes a snapshot of 5,000 tables of 10 indexes each;
// rows is what each table gained (every counter of it and its indexes moves).
func writeBigSnapshot(t *testing.T, path string, started, at time.Time, rows float64) {
	t.Helper()
	s := &collectors.Snapshot{TakenAt: at, Marks: map[string]string{"wal_insert_lsn": fmt.Sprintf("0/%X", 1<<20+int(rows)*1000)},
		Server: dialects.Server{Dialect: "postgres", Version: "15.20", VersionNum: 150020, Database: "app", Identity: "7715086617776330899/app", StartedAt: started},
		Scope:  collectors.Scope{Schemas: []string{"app"}}}
	counter := func(level collectors.Level, obj, metric string, v float64, src, id string) {
		c := collectors.Counter{Key: collectors.Key{Level: level, Object: obj, Metric: metric}, Value: v, Exactness: result.Exact, Source: src, Identity: id, Reset: "never"}
		if metric == "size_bytes" {
			c.Source, c.Reset, c.Gauge = "pg_relation_size()", "", true
		}
		s.Counters = append(s.Counters, c)
	}
	s.Counters = append(s.Counters, collectors.Counter{Key: collectors.Key{Level: collectors.DB, Metric: "log_bytes"}, Value: 1e6 + rows*1e4, Exactness: result.Exact,
		Source: "pg_current_wal_insert_lsn() difference (whole cluster, all sessions; includes WAL page headers and record alignment)"})
	tableCounters := [][2]string{{"rows_inserted", "n_tup_ins"}, {"rows_updated", "n_tup_upd"}, {"rows_deleted", "n_tup_del"}, {"hot_updates", "n_tup_hot_upd"},
		{"autovacuum_runs", "autovacuum_count"}, {"autoanalyze_runs", "autoanalyze_count"}, {"vacuum_runs", "vacuum_count"}, {"size_bytes", ""}}
	indexCounters := [][2]string{{"scans", "idx_scan"}, {"tuples_read", "idx_tup_read"}, {"tuples_fetched", "idx_tup_fetch"}, {"size_bytes", ""}}
	for i := range 5000 {
		table, oid := fmt.Sprintf("t%d", i), 20000+i*11
		fqn := "app." + table
		id := fmt.Sprint(oid)
		s.Objects = append(s.Objects, collectors.Object{Level: collectors.Table, Schema: "app", Name: table, ID: id, Info: map[string]string{"oid": id}})
		for _, c := range tableCounters {
			counter(collectors.Table, fqn, c[0], 1000+rows, "pg_stat_user_tables."+c[1], id)
		}
		counter(collectors.Table, fqn, "buffer_hits", 5000+rows*3, "pg_statio_user_tables.heap_blks_hit (every session's accesses)", id)
		counter(collectors.Table, fqn, "buffer_reads", 50+rows/10, "pg_statio_user_tables.heap_blks_read (every session's accesses)", id)
		for j, col := range "abcdefghij" {
			name, ixid := fmt.Sprintf("%s_%c_idx", table, col), fmt.Sprint(oid+1+j)
			ixfqn := "app." + name
			s.Objects = append(s.Objects, collectors.Object{Level: collectors.Index, Schema: "app", Name: name, Table: table, ID: ixid,
				Info: map[string]string{"definition": fmt.Sprintf("CREATE INDEX %s ON app.%s USING btree (%c)", name, table, col), "method": "btree", "oid": ixid}})
			for _, c := range indexCounters {
				counter(collectors.Index, ixfqn, c[0], 2000+rows, "pg_stat_user_indexes."+c[1], ixid)
			}
			counter(collectors.Index, ixfqn, "buffer_hits", 3000+rows*2, "pg_statio_user_indexes.idx_blks_hit (every session's accesses)", ixid)
			counter(collectors.Index, ixfqn, "buffer_reads", 30+rows/10, "pg_statio_user_indexes.idx_blks_read (every session's accesses)", ixid)
		}
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := measure.NewSnapshotFile(s, "postgres://app@db/app").Write(f); err != nil {
		t.Fatal(err)
	}
}

// vmHWM is the process's peak RSS in bytes, 0 when it cannot be read.
func vmHWM(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kib, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kib * 1024
		}
	}
	return 0
}
