package mysqltest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/writeamp/writeamp/dialects"
	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// EnvDSN names the variable holding the test server's DSN.
const EnvDSN = "WRITEAMP_TEST_MYSQL_DSN"

// DSN returns the test server's DSN. Unset, the test is skipped with a
// message, except under CI=true, where it fails: CI never skips them.
func DSN(t testing.TB) string {
	t.Helper()
	if os.Getenv(EnvDSN) == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is unset under CI=true: the MySQL/MariaDB integration tests must run in CI (e.g. %s=mysql://root@127.0.0.1:3306/test)", EnvDSN, EnvDSN)
		}
		t.Skipf("%s is unset: set it (e.g. mysql://root@127.0.0.1:3306/test) to run the MySQL/MariaDB integration tests", EnvDSN)
	}
	return testenv.DSN(t, EnvDSN)
}

// Open connects to the test server and probes it; the handle is closed at
// the end of the test. It also holds a server-side lock for the whole test:
// the counters are server-wide, so integration tests of different packages
// (which go test runs in parallel) must not run inside each other's windows.
func Open(t testing.TB) (*sql.DB, dialects.Server) {
	t.Helper()
	db, s := OpenDSN(t, DSN(t))
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got sql.NullInt64
	if err := conn.QueryRowContext(context.Background(), "SELECT GET_LOCK('writeamp_mysql_integration_tests', 600)").Scan(&got); err != nil || got.Int64 != 1 {
		conn.Close()
		t.Fatalf("waiting for the other integration tests to finish: %v (GET_LOCK = %v)", err, got)
	}
	t.Cleanup(func() {
		conn.ExecContext(context.Background(), "DO RELEASE_LOCK('writeamp_mysql_integration_tests')")
		conn.Close()
	})
	awaitPurge(t, db, s)
	return db, s
}

// OpenDSN is Open for a given DSN (e.g. another user's).
func OpenDSN(t testing.TB, dsn string) (*sql.DB, dialects.Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := my.Dialect{}.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s, err := my.Dialect{}.Probe(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	return db, s
}

// Name returns a unique name with the given prefix.
func Name(prefix string) string {
	b := make([]byte, 4)
	rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// TempDatabase creates a database the test owns and drops it at the end.
func TempDatabase(t testing.TB, db *sql.DB) string {
	t.Helper()
	name := Name("writeamp_test_")
	if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := db.Exec("DROP DATABASE IF EXISTS " + name); err != nil {
			t.Errorf("drop test database %s: %v", name, err)
		}
	})
	return name
}

// Exec runs statements, failing the test on the first error.
func Exec(t testing.TB, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// awaitPurge waits, up to a minute, until InnoDB has purged what the tests
// before this one left: purge writes redo in the background, and this
// test's windows must not hold another test's.
func awaitPurge(t testing.TB, db *sql.DB, s dialects.Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	t0 := time.Now()
	for {
		n, _, err := my.HistoryLength(ctx, db, s)
		if err != nil || n == 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Logf("InnoDB still had %d undo logs to purge after %s: this test's windows may hold their redo", n, time.Since(t0).Round(time.Second))
			return
		case <-time.After(200 * time.Millisecond):
		}
	}
}
