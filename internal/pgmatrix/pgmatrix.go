// Package pgmatrix runs integration tests on a throwaway server of every
// PostgreSQL major version writeamp supports (13 through 18), one after
// the other. The server binaries come from scripts/pg-versions.sh, which
// make test runs; it sets WRITEAMP_TEST_PG_BINS to "13=DIR,14=DIR,...".
// Without them a major is skipped, except under CI=true, where a missing
// major is a failure: the README's "PostgreSQL 13–18" is a test.
package pgmatrix

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/internal/testenv"
	"github.com/writeamp/writeamp/pgembed"
)

// Env names the variable that lists each major's server binaries.
const Env = "WRITEAMP_TEST_PG_BINS"

// Majors are the supported PostgreSQL major versions.
var Majors = []int{13, 14, 15, 16, 17, 18}

// Bins parses Env: major -> bin directory.
func Bins() map[int]string {
	out := map[int]string{}
	for _, kv := range strings.Split(os.Getenv(Env), ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if n, err := strconv.Atoi(k); ok && err == nil {
			out[n] = v
		}
	}
	return out
}

// Bin returns one major's binaries, or skips (fails under CI) the test.
func Bin(t *testing.T, major int) string {
	t.Helper()
	bin := Bins()[major]
	if bin == "" {
		if testenv.CI() {
			t.Fatalf("no PostgreSQL %d binaries under CI=true (%s is %q): make test fetches them with scripts/pg-versions.sh", major, Env, os.Getenv(Env))
		}
		t.Skipf("no PostgreSQL %d binaries: run scripts/pg-versions.sh --env (make test does)", major)
	}
	return bin
}

// Server is one major's running throwaway server.
type Server struct {
	Major int
	DSN   string
	*pgembed.Server
}

// Start starts one major's server for the test and stops it when the test ends.
func Start(t *testing.T, major int) *Server {
	t.Helper()
	bin := Bin(t, major)
	srv, err := pgembed.StartBin(context.Background(), bin, nil)
	if err != nil {
		t.Fatalf("start PostgreSQL %d from %s: %v", major, bin, err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			t.Errorf("stop PostgreSQL %d: %v", major, err)
		}
	})
	return &Server{Major: major, DSN: srv.DSN(), Server: srv}
}

// Each runs f as a subtest "pgNN" per major, each on its own fresh server,
// one major at a time (a 2-core machine runs one server comfortably).
func Each(t *testing.T, f func(t *testing.T, s *Server)) { EachSince(t, Majors[0], f) }

// EachSince is Each for the majors from since on (a feature's first release).
func EachSince(t *testing.T, since int, f func(t *testing.T, s *Server)) {
	for _, m := range Majors {
		if m < since {
			continue
		}
		t.Run(fmt.Sprintf("pg%d", m), func(t *testing.T) {
			f(t, Start(t, m))
		})
	}
}
