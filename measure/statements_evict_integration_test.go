package measure_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/internal/testing/pgmatrix"
	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/reports"
	"github.com/writeamp/writeamp/result"
)

// evictTables is how many distinct statements the window runs: more than
// pg_stat_statements.max (100, its minimum), so entries must be evicted.
const evictTables = 150

// TestStatementsEvictionsSeen: with pg_stat_statements.max = 100, a wrapped
// script of 150 distinct INSERTs (one per table, so one queryid each) makes
// pg_stat_statements evict inside the window. The run must say so (a
// warning that the window saw evictions: from pg_stat_statements_info's
// dealloc on 14+, from entries read before the window that are gone after it
// on 13) and label every listed statement's figures approx, in the result
// and in the table report; 13's section also notes that it keeps no
// eviction count.
func TestStatementsEvictionsSeen(t *testing.T) {
	t.Parallel()
	pgmatrix.EachParallel(t, func(t *testing.T, srv *pgmatrix.Server) {
		// The setting exists once the library is loaded (before 17 ALTER
		// SYSTEM refuses a placeholder), and takes a restart to apply.
		preloadStatements(t, srv)
		db, _ := openPG(t, srv.DSN)
		mustExec(t, db, `ALTER SYSTEM SET pg_stat_statements.max = 100`)
		db.Close()
		if err := srv.Restart(context.Background()); err != nil {
			t.Fatal(err)
		}
		db, s := openPG(t, srv.DSN)
		mustExec(t, db, `CREATE EXTENSION pg_stat_statements`)
		mustExec(t, db, `CREATE SCHEMA ev`)
		var max string
		if err := db.QueryRow(`SELECT current_setting('pg_stat_statements.max')`).Scan(&max); err != nil || max != "100" {
			t.Fatalf("pg_stat_statements.max %q (%v), want 100", max, err)
		}
		var sqls []string
		for i := 1; i <= evictTables; i++ {
			mustExec(t, db, fmt.Sprintf(`CREATE TABLE ev.t%d (id int)`, i))
			sqls = append(sqls, fmt.Sprintf(`insert into ev.t%d values (1)`, i))
		}
		run := wrapped(t, db, s, "ev", psqlCmd(t, srv.DSN, sqls...))
		sec := run.Statements
		if sec == nil || len(sec.Top) == 0 {
			t.Fatalf("no statements section; missing %v", run.Missing)
		}
		var warned string
		for _, w := range run.Warnings {
			if strings.Contains(w, "pg_stat_statements") && (strings.Contains(w, "saw evictions") || strings.Contains(w, "dropped")) {
				warned = w
			}
		}
		if warned == "" {
			t.Errorf("no warning that the window saw evictions among %q", run.Warnings)
		}
		for _, st := range sec.Top {
			for name, m := range map[string]result.Metric{"rows": st.Rows, "log bytes": st.LogBytes, "calls": st.Calls} {
				if m.OK() && m.Exactness != result.Approx {
					t.Errorf("%.60s: %s %s after evictions, want approx", st.Text, name, m.Exactness)
				}
			}
		}
		noted := len(sec.Notes) > 0 && sec.Notes[0] == measure.NoEvictionCount(sec.View)
		if noted != (srv.Major == 13) {
			t.Errorf("PostgreSQL %d: the no-eviction-count note %v (notes %q)", srv.Major, noted, sec.Notes)
		}
		var b bytes.Buffer
		res := &result.Result{SchemaVersion: 1, Server: result.Server{Dialect: "postgres"}, Runs: []result.Run{*run}}
		if err := reports.Render(&b, "table", res, reports.Options{}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		i := strings.Index(out, "Top statements by log bytes")
		if i < 0 || !strings.Contains(out[i:], "│ approx │") || strings.Contains(out[i:], "│ exact │") {
			t.Errorf("the statements table does not label its figures approx:\n%s", out[max0(i):])
		}
		t.Logf("PostgreSQL %d: %d statements listed (%d more); %s", srv.Major, len(sec.Top), sec.More, warned)
	})
}

func max0(i int) int {
	if i < 0 {
		return 0
	}
	return i
}
