package measure_test

import (
	"database/sql"
	"net/url"
	"os/exec"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/internal/testing/mysqltest"
	"github.com/writeamp/writeamp/internal/testing/testenv"
	"github.com/writeamp/writeamp/result"
)

// digestRows is the test's own read of performance_schema's digest table:
// the rows affected and calls of the digests whose text starts with prefix.
func digestRows(t *testing.T, db *sql.DB, prefix string) (rows, calls float64) {
	t.Helper()
	if err := db.QueryRow(`SELECT coalesce(sum(SUM_ROWS_AFFECTED), 0), coalesce(sum(COUNT_STAR), 0)
		FROM performance_schema.events_statements_summary_by_digest WHERE DIGEST_TEXT LIKE concat(?, '%')`, prefix).Scan(&rows, &calls); err != nil {
		t.Fatal(err)
	}
	return rows, calls
}

// TestMariaDBStatementDigests: on a private MariaDB with performance_schema
// on, a wrapped script of distinct statements lists each digest with the
// rows it changed (the script's truth, and the test's own digest reads).
func TestMariaDBStatementDigests(t *testing.T) {
	t.Parallel()
	client, err := exec.LookPath("mariadb")
	if err != nil {
		if testenv.CI() {
			t.Fatal("the mariadb client is not installed under CI=true")
		}
		t.Skip("the mariadb client is not installed")
	}
	dsn := mysqltest.Private(t, "--performance-schema=ON")
	db, s := mysqltest.OpenDSN(t, dsn)
	name := mysqltest.TempDatabase(t, db)
	mysqltest.Exec(t, db, "CREATE TABLE "+name+".a (id int PRIMARY KEY, v int) ENGINE=InnoDB",
		"CREATE TABLE "+name+".b (id int PRIMARY KEY, v int, KEY (v)) ENGINE=InnoDB",
		"INSERT INTO "+name+".b SELECT seq, 0 FROM seq_1_to_3000",
		// Rows a trigger writes are the storage engine's, not the DELETE's
		// rows affected: the reconciliation's remainder must name them.
		"CREATE TABLE "+name+".gone (id int PRIMARY KEY) ENGINE=InnoDB",
		"CREATE TRIGGER "+name+".b_gone AFTER DELETE ON "+name+".b FOR EACH ROW INSERT INTO "+name+".gone VALUES (OLD.id)")
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	script := "INSERT INTO a SELECT seq, 0 FROM seq_1_to_1234; UPDATE b SET v = v + 1 WHERE id <= 777; DELETE FROM b WHERE id > 2900; " +
		"UPDATE a SET v = 7 WHERE id <= 50; INSERT INTO a VALUES (5000, 1), (5001, 1), (5002, 1);"
	// MariaDB's digest text quotes names and spaces its tokens.
	want := map[string]float64{"INSERT INTO `a` SELECT": 1234, "UPDATE `b`": 777, "DELETE FROM `b`": 100, "UPDATE `a`": 50, "INSERT INTO `a` VALUES": 3}
	before := map[string]float64{}
	for p := range want {
		before[p], _ = digestRows(t, db, p)
	}
	run := wrapped(t, db, s, name, []string{client, "-h", u.Hostname(), "-P", u.Port(), "-u", u.User.Username(), name, "-e", script})
	if run.Statements == nil {
		t.Fatalf("no statements section; missing %v", run.Missing)
	}
	for p, rows := range want {
		after, _ := digestRows(t, db, p)
		var got *result.Statement
		for i, st := range run.Statements.Top {
			if strings.HasPrefix(st.Text, p) {
				got = &run.Statements.Top[i]
			}
		}
		if got == nil {
			var texts []string
			for _, st := range run.Statements.Top {
				texts = append(texts, st.Text)
			}
			t.Errorf("%s: not listed among %q", p, texts)
			continue
		}
		if got.Rows.V() != rows || after-before[p] != rows || got.Rows.Exactness != result.Exact || got.Calls.V() != 1 {
			t.Errorf("%s: rows %v (%s), calls %v, the test's own digest difference %v; want %v", p, got.Rows.V(), got.Rows.Exactness, got.Calls.V(), after-before[p], rows)
		}
		if got.LogBytes.OK() {
			t.Errorf("%s: log bytes %v, but InnoDB keeps no per-statement redo", p, got.LogBytes.V())
		}
		if ex := got.Other["rows_examined"]; !ex.OK() {
			t.Errorf("%s: rows examined missing: %+v", p, ex)
		}
		t.Logf("%s: %v rows, %v examined, no index used %v, %.2f ms", got.Text, got.Rows.V(), got.Other["rows_examined"].V(), got.Other["no_index_used"].V(), got.Other["exec_ms"].V())
	}
	reconciledRows(t, run, want)
	// writeamp's own reads are left out of the list and counted, all of
	// them: the list holds only the script's statements.
	for _, st := range run.Statements.Top {
		ok := false
		for p := range want {
			ok = ok || strings.HasPrefix(st.Text, p)
		}
		if !ok {
			t.Errorf("listed, but not the script's: %.200q", st.Text)
		}
	}
	if len(run.Statements.Top) != len(want) || run.Statements.Observer == 0 {
		t.Errorf("%d statements listed (the script ran %d), %d of writeamp's own reads left out", len(run.Statements.Top), len(want), run.Statements.Observer)
	}
	t.Logf("writeamp's own reads left out: %d", run.Statements.Observer)
}

// reconciledRows: the statements' rows affected sum to the section's Rows,
// the tables in scope counted the script's rows plus the trigger's (its 100
// inserts into gone), and sum + remainder is that window total, the
// remainder being the trigger's rows, named.
func reconciledRows(t *testing.T, run *result.Run, want map[string]float64) {
	t.Helper()
	sec := run.Statements
	if sec.Rows == nil || sec.RowsInScope == nil || sec.RowsRemainder == nil {
		t.Fatalf("no rows reconciliation: rows %v, in scope %v, remainder %v", sec.Rows, sec.RowsInScope, sec.RowsRemainder)
	}
	var sum, script float64
	for _, st := range sec.Top {
		sum += st.Rows.V()
	}
	for _, n := range want {
		script += n
	}
	// The test's own window total: the tables' counters as the run lists them.
	var window float64
	for _, tb := range []string{"a", "b", "gone"} {
		o := run.Table(tb)
		if o == nil {
			t.Fatalf("table %s not in the run", tb)
		}
		for _, m := range result.RowMetrics {
			window += o.Metrics[m].V()
		}
	}
	if sec.More != 0 || sec.Rows.V() != sum || sum != script {
		t.Errorf("statements' rows: section %v, listed sum %v (%d more), the script's %v", sec.Rows.V(), sum, sec.More, script)
	}
	if sec.RowsInScope.V() != window || window != script+100 || sec.RowsInScope.Exactness != result.Exact {
		t.Errorf("in-scope rows written: section %v (%s), the tables' own %v; want the script's %v + the trigger's 100", sec.RowsInScope.V(), sec.RowsInScope.Exactness, window, script)
	}
	rest := sec.RowsRemainder
	if sum+rest.V() != window || rest.V() != 100 || !strings.Contains(rest.Note, "triggers") {
		t.Errorf("reconciliation: statements %v + remainder %v != window %v, or the remainder unnamed: %q", sum, rest.V(), window, rest.Note)
	}
	t.Logf("rows: statements %v + remainder %v (%s) = in scope %v (%s)", sum, rest.V(), rest.Exactness, window, sec.RowsInScope.Source)
}
