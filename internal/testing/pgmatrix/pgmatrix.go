package pgmatrix

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // Open's driver

	"github.com/writeamp/writeamp/internal/testing/testenv"
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

// Open is a pool on the server (pgx), closed when the test ends, before
// the server stops.
func (s *Server) Open(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", s.DSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Each runs f as a subtest "pgNN" per major, each on its own fresh server,
// one major at a time (a 2-core machine runs one server comfortably).
func Each(t *testing.T, f func(t *testing.T, s *Server)) { EachSince(t, Majors[0], f) }

// EachSince is Each for the majors from since on (a feature's first release).
func EachSince(t *testing.T, since int, f func(t *testing.T, s *Server)) { each(t, since, false, f) }

// EachParallel is Each with the majors running side by side (go test's
// -parallel of them at a time, 2 by default on a 2-core machine). Each
// major has its own server, so no major's WAL lands in another's window;
// f must not touch package state other majors read (hooks, t.Setenv).
// The package's other tests wait until every major has finished.
func EachParallel(t *testing.T, f func(t *testing.T, s *Server)) { each(t, Majors[0], true, f) }

// EachParallelSince is EachParallel from one major on.
func EachParallelSince(t *testing.T, since int, f func(t *testing.T, s *Server)) {
	each(t, since, true, f)
}

func each(t *testing.T, since int, parallel bool, f func(t *testing.T, s *Server)) {
	for _, m := range Majors {
		if m < since {
			continue
		}
		t.Run(fmt.Sprintf("pg%d", m), func(t *testing.T) {
			if parallel {
				t.Parallel()
			}
			f(t, Start(t, m))
		})
	}
}

// StartStandby makes a physical standby of primary (a copy of its stopped
// data directory, streaming from it as application_name name) and stops it
// when the test ends. Under CI=true a standby that cannot start fails the
// test like a missing major.
func StartStandby(t *testing.T, primary *Server, name string) *Server {
	t.Helper()
	st, err := primary.Server.StartStandby(context.Background(), name)
	if err != nil {
		t.Fatalf("start a PostgreSQL %d standby: %v", primary.Major, err)
	}
	t.Cleanup(func() {
		if err := st.Stop(); err != nil {
			t.Errorf("stop the PostgreSQL %d standby: %v", primary.Major, err)
		}
	})
	return &Server{Major: primary.Major, DSN: st.DSN(), Server: st}
}
