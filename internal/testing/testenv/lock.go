package testenv

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The servers a DSN names are shared by every test of every package, and
// their counters are server-wide: a test's window must not contain another
// test's writes. So a test that asks for a shared DSN holds that server
// until it ends, against the other tests of its process (a mutex) and of
// the other test binaries go test runs at once (an flock on a file named by
// the DSN). Tests that start their own throwaway servers need no lock and
// run beside them.
var (
	lockDir = os.TempDir() // fixed at start: a test may point TMPDIR elsewhere
	mu      sync.Mutex
	servers = map[string]*server{}
)

type server struct {
	sync.Mutex
	rank   int    // the order in which a test may take two servers
	holder string // the test's name while held
}

// hold takes the server of dsn for t and the rest of its life. A subtest
// of the holder shares the hold. Taking a second server in a different
// order from another test could deadlock both, so a test must take
// PostgreSQL before MySQL/MariaDB; the other order fails at once.
func hold(t testing.TB, envVar, dsn string) {
	t.Helper()
	sum := sha256.Sum256([]byte(dsn))
	key := hex.EncodeToString(sum[:8])
	rank := 2
	if strings.Contains(envVar, "_PG_") {
		rank = 1
	}
	mu.Lock()
	s := servers[key]
	if s == nil {
		s = &server{rank: rank}
		servers[key] = s
	}
	for _, o := range servers {
		if o != s && o.holder != "" && heldBy(o.holder, t.Name()) && o.rank > rank {
			mu.Unlock()
			t.Fatalf("%s asked for after a server of a later rank: a test takes PostgreSQL before MySQL/MariaDB (two tests taking them in opposite orders would wait for each other)", envVar)
		}
	}
	if s.holder != "" && heldBy(s.holder, t.Name()) {
		mu.Unlock()
		return
	}
	mu.Unlock()
	t0 := time.Now()
	s.Lock()
	unlock := func() {}
	// Released in every case, a failed flock (t.Fatal) included: else
	// every later test of this process would wait on s for good.
	var got time.Time
	t.Cleanup(func() {
		// The shared servers' queue is the suite's longest path: each test's
		// hold, summed from make test's log, says which tests make it.
		if !got.IsZero() {
			t.Logf("held the server of %s for %.1fs", envVar, time.Since(got).Seconds())
		}
		mu.Lock()
		s.holder = ""
		mu.Unlock()
		unlock()
		s.Unlock()
	})
	unlock = flock(t, filepath.Join(lockDir, "writeamp-test-"+key+".lock"))
	got = time.Now()
	if w := got.Sub(t0); w > time.Second {
		// The test's time in go test -v includes this wait.
		t.Logf("waited %.1fs for the server of %s", w.Seconds(), envVar)
	}
	mu.Lock()
	s.holder = t.Name()
	mu.Unlock()
	awaitQuiet(t, envVar, dsn)
}

// heldBy reports whether the test named name is holder or one of its
// subtests.
func heldBy(holder, name string) bool {
	return name == holder || strings.HasPrefix(name, holder+"/")
}
