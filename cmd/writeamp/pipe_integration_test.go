package main

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/writeamp/writeamp/internal/testing/testenv"
	"github.com/writeamp/writeamp/pgembed"
)

func exitStatus(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// `writeamp run 2>&1 | head -1`: the reader goes away mid-run. writeamp used
// to die of SIGPIPE at its next note, leaving its schema; now it stops as on
// Ctrl-C, cleans up and exits 141.
func TestClosedStderrMidRunCleansUp(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, "WRITEAMP_TEST_PG_DSN")
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	testenv.Reachable(t, db, "PostgreSQL")
	bin := buildBinary(t)
	before := catalogState(t, db)
	r, w, _ := os.Pipe()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "run", "--dsn", dsn, "--logins", "3000", "--variants", "baseline")
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	first, _ := bufio.NewReader(r).ReadString('\n') // what `head -1` reads
	// Close the pipe once the workload's schema exists, i.e. mid-run.
	for i := 0; i < 100 && len(writeampSchemas(t, db)) == 0; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	r.Close()
	err = cmd.Wait()
	if got := exitStatus(err); got != exitBrokenPipe {
		t.Errorf("exit %d (%v), want %d; first line %q", got, err, exitBrokenPipe, first)
	}
	if after := catalogState(t, db); after != before {
		t.Errorf("catalog changed: before %s, after %s", before, after)
	}
}

// `writeamp run | head -2` with no DSN: the throwaway PostgreSQL must be
// stopped and removed even when nobody reads the report.
func TestClosedStdoutStillRemovesTheThrowawayServer(t *testing.T) {
	t.Parallel() // its own throwaway server and TMPDIR: alongside the other tests that have one
	if _, err := pgembed.FindBinaries(); err != nil {
		if testenv.CI() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	bin := buildBinary(t)
	// The server runs as postgres (or nobody) when the test is root: its
	// TMPDIR must be reachable for that user, which t.TempDir's is not.
	tmp, err := os.MkdirTemp("", "writeamp-pipe-test-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(tmp, 0o777)
	t.Cleanup(func() { killUnder(tmp); os.RemoveAll(tmp) }) // what the old behaviour left running
	r, w, _ := os.Pipe()
	r.Close() // the reader is gone before the report is written
	cmd := exec.Command(bin, "run", "-q", "--logins", "20", "--refreshes-per-login", "2", "--variants", "coarse")
	cmd.Env = append(cleanEnv(), "TMPDIR="+tmp)
	cmd.Stdout = w
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	w.Close()
	if got := exitStatus(err); got != exitBrokenPipe {
		t.Errorf("exit %d (%v), want %d; stderr: %s", got, err, exitBrokenPipe, stderr.String())
	}
	left, _ := filepath.Glob(filepath.Join(tmp, "writeamp-pg-*"))
	if len(left) > 0 {
		t.Errorf("the throwaway server's directory was left: %v", left)
	}
}

// cleanEnv is the environment without anything that names a database, so
// run starts its throwaway server.
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "WRITEAMP_DSN" || k == "DATABASE_URL" || strings.HasPrefix(k, "PG") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// killUnder stops processes whose command line names dir (a leaked server).
func killUnder(dir string) {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		data, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(data), dir) {
			continue
		}
		var pid int
		if _, err := fmt.Sscan(filepath.Base(filepath.Dir(p)), &pid); err == nil && pid != os.Getpid() {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

func writeampSchemas(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query(`SELECT nspname FROM pg_namespace WHERE nspname LIKE 'writeamp\_rt\_%'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		rows.Scan(&n)
		out = append(out, n)
	}
	return out
}
