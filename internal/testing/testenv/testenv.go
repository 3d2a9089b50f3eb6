package testenv

import (
	"context"
	"database/sql"
	"os"
	"os/exec"
	"testing"
	"time"
)

// CI reports whether the tests run under CI.
func CI() bool { return os.Getenv("CI") == "true" }

// DSN returns the value of the variable, or skips/fails the test. The test
// holds the server it names until it ends (see hold).
func DSN(t testing.TB, envVar string) string {
	t.Helper()
	dsn := os.Getenv(envVar)
	if dsn == "" {
		if CI() {
			t.Fatalf("%s is not set and CI=true: integration tests must run in CI", envVar)
		}
		t.Skipf("%s not set: skipping integration test (make test sets it)", envVar)
	}
	hold(t, envVar, dsn)
	return dsn
}

// Reachable fails (CI) or skips the test when the database does not answer.
func Reachable(t testing.TB, db *sql.DB, what string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		if CI() {
			t.Fatalf("%s unreachable under CI=true: %v", what, err)
		}
		t.Skipf("%s unreachable: %v", what, err)
	}
}

// Tool is the path of the first of names found in PATH (a client a test
// drives: psql, mariadb or mysql). Without any it skips, except under
// CI=true, where it fails: the CI image installs them with the servers.
func Tool(t testing.TB, names ...string) string {
	t.Helper()
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	if CI() {
		t.Fatalf("none of %v in PATH under CI=true (scripts/services.sh installs the clients with the servers)", names)
	}
	t.Skipf("none of %v installed", names)
	return ""
}

// Heavy skips the test under -short (make test-unit, which must stay under
// a minute): it starts a server of its own or builds writeamp. make test
// never passes -short, and counts every skip.
func Heavy(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("-short: %s (make test runs it)", what)
	}
}
