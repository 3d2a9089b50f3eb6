package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// dryRun runs services.sh DRY_RUN=1 with Debian's PostgreSQL root at pglib
// and a PATH of the few tools it uses and a pgbench, no server binaries
// (whatever this machine has), and returns what it would install.
func dryRun(t *testing.T, pglib string, installOnly bool, services ...string) string {
	t.Helper()
	bin := t.TempDir()
	for _, tool := range []string{"ls", "dirname", "readlink"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(p, filepath.Join(bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	touch(t, filepath.Join(bin, "pgbench"), 0o755)
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bash, append([]string{filepath.Join("..", "..", "..", "scripts", "services.sh")}, services...)...)
	cmd.Env = []string{"PATH=" + bin, "DRY_RUN=1", "SERVICES_PG_LIB=" + pglib}
	if installOnly {
		cmd.Env = append(cmd.Env, "INSTALL_ONLY=1")
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("services.sh %v: %v\n%s", services, err, out)
	}
	return string(out)
}

func touch(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), mode); err != nil {
		t.Fatal(err)
	}
}

// make demo (INSTALL_ONLY=1) installs the server package when no initdb
// and postgres are found, nothing when they are, and never the test-only
// pg_wait_sampling, which make test's path installs for PostgreSQL 15.
func TestDemoInstallsOnlyTheServer(t *testing.T) {
	empty := t.TempDir()
	if got := dryRun(t, empty, true, "postgres"); got != "install: postgresql\n" {
		t.Errorf("demo, no server binaries: %q, want %q", got, "install: postgresql\n")
	}
	if got := dryRun(t, empty, false, "postgres"); got != "install: postgresql postgresql-contrib\n" {
		t.Errorf("tests, no server binaries: %q", got)
	}

	// A PostgreSQL 15 with contrib and without pg_wait_sampling.
	pg := t.TempDir()
	touch(t, filepath.Join(pg, "15/bin/initdb"), 0o755)
	touch(t, filepath.Join(pg, "15/bin/postgres"), 0o755)
	touch(t, filepath.Join(pg, "15/lib/pg_walinspect.so"), 0o644)
	if got := dryRun(t, pg, true, "postgres"); got != "" {
		t.Errorf("demo, server present: would install %q, want nothing", got)
	}
	if got := dryRun(t, pg, false, "postgres"); got != "install: postgresql-15-pg-wait-sampling\n" {
		t.Errorf("tests, 15 without pg_wait_sampling: %q", got)
	}
}
