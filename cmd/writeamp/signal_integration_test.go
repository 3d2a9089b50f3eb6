package main

import (
	"context"
	"database/sql"
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/writeamp/writeamp/internal/testing/testenv"
)

func catalogState(t *testing.T, db *sql.DB) string {
	t.Helper()
	var s string
	err := db.QueryRow(`SELECT (SELECT count(*) FROM pg_namespace)::text || '/' ||
		(SELECT count(*) FROM pg_class WHERE relkind IN ('r','i'))::text || '/' ||
		(SELECT string_agg(extname, ',' ORDER BY extname) FROM pg_extension) || '/slots:' ||
		(SELECT count(*) FROM pg_replication_slots)::text`).Scan(&s)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSIGINTAndSIGTERMLeaveTheCatalogAsItWas runs the real binary, interrupts
// it mid-workload and compares the catalog before and after.
func TestSIGINTAndSIGTERMLeaveTheCatalogAsItWas(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, "WRITEAMP_TEST_PG_DSN")
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	testenv.Reachable(t, db, "PostgreSQL")
	bin := buildBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		before := catalogState(t, db)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		cmd := exec.CommandContext(ctx, bin, "run", "-q", "--dsn", dsn, "--logins", "50000")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Interrupt once the workload's schema exists, i.e. mid-run.
		for i := 0; i < 100; i++ {
			var n int
			db.QueryRow(`SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'writeamp\_rt\_%'`).Scan(&n)
			if n > 0 {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		time.Sleep(500 * time.Millisecond)
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		cancel()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Errorf("%s: exit %v, want 130; stderr: %s", sig, err, stderr.String())
		}
		if !strings.Contains(stderr.String(), "interrupted") {
			t.Errorf("%s: stderr should say it was interrupted: %s", sig, stderr.String())
		}
		if after := catalogState(t, db); after != before {
			t.Errorf("%s: catalog changed: before %s, after %s", sig, before, after)
		}
	}
}
