package pgembed

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/writeamp/writeamp/internal/testing/testenv"
)

func TestStartConnectStopLeavesNothing(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: starts a PostgreSQL server of its own (make test runs it)")
	}
	if _, err := FindBinaries(); err != nil {
		if testenv.CI() {
			t.Fatalf("CI=true but no PostgreSQL binaries: %v", err)
		}
		t.Skip(err)
	}
	ctx := context.Background()
	s, err := Start(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, s.DSN())
	if err != nil {
		s.Stop()
		t.Fatal(err)
	}
	var super string
	conn.QueryRow(ctx, "SELECT current_setting('is_superuser')").Scan(&super)
	var walinspect bool
	conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_walinspect')").Scan(&walinspect)
	conn.Close(ctx)
	pid := s.cmd.Process.Pid
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if super != "on" {
		t.Error("the throwaway server must connect as its bootstrap superuser")
	}
	if _, err := os.Stat(s.Dir); !os.IsNotExist(err) {
		t.Errorf("directory %s still there: %v", s.Dir, err)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("postmaster %d still running", pid)
	}
	t.Logf("pg_walinspect available in the throwaway server: %v", walinspect)
}

func TestNoBinariesErrorSaysWhatToDo(t *testing.T) {
	msg := ErrNoBinaries.Error()
	for _, want := range []string{"apt-get install postgresql", "--dsn"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q", want)
		}
	}
	t.Setenv("PATH", t.TempDir())
	// The fixed locations may still hold binaries on this machine; only
	// check that the PATH part is consulted without error.
	_, _ = FindBinaries()
}

func TestVersionOrder(t *testing.T) {
	t.Parallel()
	if versionOf("/usr/lib/postgresql/16/bin") <= versionOf("/usr/lib/postgresql/15/bin") {
		t.Error("higher major versions must sort first")
	}
}

// A start that fails (here: an initdb that refuses) removes its directory.
func TestFailedStartLeavesNoDirectory(t *testing.T) {
	// A directory of its own: other packages' tests start throwaway servers
	// in the shared one meanwhile.
	tmp, err := os.MkdirTemp("", "writeamp-tmpdir-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	os.Chmod(tmp, 0o755)
	t.Setenv("TMPDIR", tmp)
	// Readable by the unprivileged user initdb runs as when the test is root.
	fake, err := os.MkdirTemp(tmp, "writeamp-fakebin-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(fake)
	os.Chmod(fake, 0o755)
	for _, name := range []string{"initdb", "postgres"} {
		if err := os.WriteFile(filepath.Join(fake, name), []byte("#!/bin/sh\necho refusing >&2\nexit 1\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	old := findBinaries
	findBinaries = func() (string, error) { return fake, nil }
	defer func() { findBinaries = old }()
	before, _ := filepath.Glob(filepath.Join(os.TempDir(), "writeamp-pg-*"))
	_, err = Start(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "initdb failed") || !strings.Contains(err.Error(), "refusing") {
		t.Fatalf("want initdb's own words in the error, got %v", err)
	}
	after, _ := filepath.Glob(filepath.Join(os.TempDir(), "writeamp-pg-*"))
	if len(after) > len(before) {
		t.Errorf("a failed start left %v", after)
	}
}
