package measure_test

import (
	"database/sql"
	"testing"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/measure"
)

func pgSet(t *testing.T) *collectors.Set {
	s, err := collectors.For(pg.Name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func collectorsScope() collectors.Scope { return collectors.Scope{} }

// smallConcurrency is the workers of the small runs: enough to overlap.
const smallConcurrency = 2

// window is the measured window on a test's connection (the dialect by the
// probed server's name: tests open PostgreSQL and MariaDB alike).
func window(t *testing.T, db *sql.DB, s dialects.Server) *measure.Window {
	t.Helper()
	d, ok := dialects.Get(s.Dialect)
	if !ok {
		t.Fatalf("no dialect %s", s.Dialect)
	}
	w, err := measure.NewWindow(dialects.Target{DB: db, Dialect: d, Server: s}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return w
}
