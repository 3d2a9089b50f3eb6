package pgembed

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// With the template cache set, the first start runs initdb once into the
// cache and later starts copy it: each copy is a server of its own that
// accepts writes, and the template is never written to by a server.
func TestTemplateCacheCopiesInitdbOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a PostgreSQL server of its own (make test runs it)")
	}
	if _, err := FindBinaries(); err != nil {
		if testenv.CI() {
			t.Fatalf("CI=true but no PostgreSQL binaries: %v", err)
		}
		t.Skip(err)
	}
	// Traversable by the unprivileged user initdb runs as when the test is root.
	cache, err := os.MkdirTemp("", "writeamp-templates-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(cache)
	os.Chmod(cache, 0o755)
	t.Setenv(TemplateEnv, cache)
	ctx := context.Background()
	var ports []int
	for i := 0; i < 2; i++ {
		s, err := Start(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Stop()
		conn, err := pgx.Connect(ctx, s.DSN())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, "CREATE TABLE t (id int); INSERT INTO t VALUES (1)"); err != nil {
			t.Fatalf("server %d from the template: %v", i, err)
		}
		conn.Close(ctx)
		ports = append(ports, s.Port)
	}
	if ports[0] == ports[1] {
		t.Errorf("two servers on one port %d", ports[0])
	}
	entries, _ := os.ReadDir(cache)
	if len(entries) != 1 {
		t.Fatalf("want one template for one binary directory, got %v", entries)
	}
	tmpl := filepath.Join(cache, entries[0].Name())
	if _, err := os.Stat(filepath.Join(tmpl, "postmaster.pid")); !os.IsNotExist(err) {
		t.Errorf("a server ran on the template itself: %v", err)
	}
	if fi, err := os.Stat(tmpl); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("template mode %v (%v), want 0700 as initdb made it", fi.Mode().Perm(), err)
	}
}
