package dialects_test

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/dialects/oracle"
	"github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/dialects/sqlserver"
)

// silentServer accepts connections and never says a word.
func silentServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var held []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	})
	return l.Addr().String()
}

// TestEveryDialectHonoursTheTenSecondConnectBound holds item 13 of issue 12:
// the README promises that connections time out after 10 s. A server that
// accepts TCP and never answers must fail every dialect's Open at 10 s, not
// 12 (the bound plus slack) and not at some shorter driver default.
func TestEveryDialectHonoursTheTenSecondConnectBound(t *testing.T) {
	t.Parallel()
	const bound = 10 * time.Second
	cases := []struct {
		name    string
		timeout time.Duration
		dsn     func(addr string) string
		open    dialects.Dialect
	}{
		{"postgres", postgres.ConnectTimeout, func(a string) string { return "postgres://app:pw@" + a + "/kc?sslmode=disable" }, postgres.Dialect{}},
		{"mysql", mysql.ConnectTimeout, func(a string) string { return "mysql://app:pw@" + a + "/kc" }, mysql.Dialect{}},
		{"sqlserver", sqlserver.ConnectTimeout, func(a string) string { return "sqlserver://app:pw@" + a + "?database=kc" }, sqlserver.Dialect{}},
		{"oracle", oracle.ConnectTimeout, func(a string) string { return "oracle://app:pw@" + a + "/FREEPDB1" }, oracle.Dialect{}},
	}
	// All four at once: one bound of wall time, whatever -parallel is.
	type outcome struct {
		took time.Duration
		err  error
	}
	results := make([]outcome, len(cases))
	var wg sync.WaitGroup
	for i, c := range cases {
		if c.timeout != bound {
			t.Errorf("%s.ConnectTimeout = %s, the README says %s", c.name, c.timeout, bound)
		}
		addr := silentServer(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			db, err := c.open.Open(context.Background(), c.dsn(addr))
			if err == nil {
				db.Close()
			}
			results[i] = outcome{time.Since(start), err}
		}()
	}
	wg.Wait()
	for i, c := range cases {
		r := results[i]
		if r.err == nil {
			t.Errorf("%s: a silent server was opened", c.name)
			continue
		}
		t.Logf("%s: failed after %s: %v", c.name, r.took.Round(10*time.Millisecond), r.err)
		if r.took > bound+750*time.Millisecond || r.took < bound-time.Second {
			t.Errorf("%s gave up after %s against a silent server; the bound is %s", c.name, r.took, bound)
		}
	}
}
