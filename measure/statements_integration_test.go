package measure_test

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/internal/testing/pgmatrix"
	"github.com/writeamp/writeamp/result"
)

// preloadStatements restarts srv with pg_stat_statements loaded and creates
// the extension, as a user who wants per-statement costs would.
func preloadStatements(t *testing.T, srv *pgmatrix.Server) {
	t.Helper()
	db, err := pg.Dialect{}.Open(context.Background(), srv.DSN)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, `ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`)
	db.Close()
	if err := srv.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
}

type stmtTruth struct {
	calls, rows, walBytes, walRecords float64
}

// readStatements is the test's own read of pg_stat_statements: the entries
// of this database whose text starts with prefix, summed.
func readStatements(t *testing.T, db *sql.DB, prefix string) stmtTruth {
	t.Helper()
	var st stmtTruth
	err := db.QueryRow(`SELECT coalesce(sum(calls), 0)::float8, coalesce(sum(rows), 0)::float8, coalesce(sum(wal_bytes), 0)::float8, coalesce(sum(wal_records), 0)::float8
		FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query LIKE $1 || '%'`, prefix).
		Scan(&st.calls, &st.rows, &st.walBytes, &st.walRecords)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestStatementsEveryMajor: a wrapped script of distinct statements lists
// each with its rows equal to what the script wrote (the test's truth) and
// its log bytes equal to the test's own before/after reads of
// pg_stat_statements, and the statements' sum plus the named remainder is
// the window's decoded WAL (pg_stat_wal's total or the LSN difference without it).
func TestStatementsEveryMajor(t *testing.T) {
	t.Parallel()
	pgmatrix.EachParallel(t, func(t *testing.T, srv *pgmatrix.Server) {
		preloadStatements(t, srv)
		db, s := openPG(t, srv.DSN)
		consentCreatesAndDrops(t, db, s)
		mustExec(t, db, `CREATE EXTENSION pg_stat_statements`)
		mustExec(t, db, `CREATE SCHEMA st`)
		mustExec(t, db, `CREATE TABLE st.a (id int PRIMARY KEY, v int)`)
		mustExec(t, db, `CREATE TABLE st.b (id int PRIMARY KEY, v int, w int)`)
		mustExec(t, db, `CREATE INDEX b_v ON st.b (v)`)
		mustExec(t, db, `INSERT INTO st.b SELECT g, 0, 0 FROM generate_series(1, 3000) g`)
		want := map[string]float64{"insert into st.a": 1234, "update st.b": 777, "delete from st.b": 100}
		before := map[string]stmtTruth{}
		for p := range want {
			before[p] = readStatements(t, db, p)
		}
		run := wrapped(t, db, s, "st", psqlCmd(t, srv.DSN,
			`insert into st.a select g, 0 from generate_series(1, 1234) g`,
			`update st.b set v = v + 1 where id <= 777`,
			`delete from st.b where id > 2900`))
		if run.Statements == nil {
			t.Fatalf("no statements section; missing %v", run.Missing)
		}
		var sum float64
		for _, st := range run.Statements.Top {
			sum += st.LogBytes.V()
		}
		for p, rows := range want {
			truth := readStatements(t, db, p)
			var got *result.Statement
			for i, st := range run.Statements.Top {
				if strings.HasPrefix(strings.ToLower(st.Text), p) {
					got = &run.Statements.Top[i]
				}
			}
			if got == nil {
				t.Errorf("%s: not listed among %d statements", p, len(run.Statements.Top))
				continue
			}
			if got.Rows.V() != rows || got.Rows.Exactness != result.Exact || got.Calls.V() != 1 {
				t.Errorf("%s: rows %v (%s), calls %v; want %v exact, 1 call", p, got.Rows.V(), got.Rows.Exactness, got.Calls.V(), rows)
			}
			if wb := truth.walBytes - before[p].walBytes; got.LogBytes.V() != wb || wb <= 0 {
				t.Errorf("%s: log bytes %v, the test's own pg_stat_statements difference %v", p, got.LogBytes.V(), wb)
			}
			if wr := truth.walRecords - before[p].walRecords; got.Other["log_records"].V() != wr {
				t.Errorf("%s: log records %v, want %v", p, got.Other["log_records"].V(), wr)
			}
		}
		// explain's prediction beside each: the UPDATE sets an indexed
		// column; pg_stat_statements keeps its text as v = v + $1, whose
		// value may equal the old one, so the prediction is not HOT or
		// possible on exactly that, and the measured side shows none
		// HOT. The INSERT, the only write to st.a, put the predicted entry
		// per row into a_pkey.
		for _, st := range run.Statements.Top {
			low := strings.ToLower(st.Text)
			switch {
			case strings.HasPrefix(low, "update st.b") && (st.Predicted == nil ||
				st.Predicted.HOT != "no" && !(st.Predicted.HOT == "possible" && strings.Contains(st.Predicted.Comparison, "new value equals old")) ||
				!strings.Contains(st.Predicted.Comparison, "HOT updates 0 of 777")):
				t.Errorf("update: prediction %+v, want not HOT (or possible on the new value equalling the old) and 0 of 777 measured HOT", st.Predicted)
			case strings.HasPrefix(low, "insert into st.a") && (st.Predicted == nil || !strings.Contains(st.Predicted.Comparison, "a_pkey 1234 as predicted")):
				t.Errorf("insert: prediction %+v, want a_pkey's 1234 entries as predicted", st.Predicted)
			}
		}
		total := run.Database["log_bytes_decoded"]
		if !total.OK() {
			total = run.Database["log_bytes_stat"]
		}
		if !total.OK() {
			total = run.Database["log_bytes"]
		}
		rest := run.Statements.Remainder
		if run.Statements.LogBytes == nil || rest == nil || run.Statements.LogBytes.V() != sum || sum+rest.V() != total.V() || rest.Note == "" {
			t.Errorf("reconciliation: statements %v + remainder %v != window %v (%s)", sum, rest, total.V(), total.Source)
		}
		if sum > total.V() {
			t.Errorf("statements' log bytes %v exceed the window's %v", sum, total.V())
		}
		for _, st := range run.Statements.Top {
			t.Logf("  %v B %v rows: %.70s", st.LogBytes.V(), st.Rows.V(), st.Text)
			// Only the script's statements: writeamp's own reads (0 B) are left out.
			if low := strings.ToLower(st.Text); !strings.HasPrefix(low, "insert into st.a") && !strings.HasPrefix(low, "update st.b") && !strings.HasPrefix(low, "delete from st.b") {
				t.Errorf("listed, but not the script's: %.100q", st.Text)
			}
		}
		if run.Statements.Observer == 0 {
			t.Error("no reads of writeamp's own were recognised (its snapshots ran in the window)")
		}
		ownKept(t, db, s)
		t.Logf("PostgreSQL %d: %d statements, %v log bytes of %v in the window (remainder %v: %s)", srv.Major, len(run.Statements.Top), sum, total.V(), rest.V(), total.Source)
	})
}

func statementsExt(t *testing.T, db *sql.DB) (bool, string) {
	t.Helper()
	var n int
	var comment string
	if err := db.QueryRow(`SELECT count(*), coalesce(max(obj_description(oid, 'pg_extension')), '') FROM pg_extension WHERE extname = 'pg_stat_statements'`).Scan(&n, &comment); err != nil {
		t.Fatal(err)
	}
	return n > 0, comment
}

// consentCreatesAndDrops: without consent nothing is created; with it
// (--create-pg-stat-statements) the extension exists, marked as writeamp's,
// for the window and is dropped by Restore.
func consentCreatesAndDrops(t *testing.T, db *sql.DB, s dialects.Server) {
	t.Helper()
	ctx := context.Background()
	w := window(t, db, s)
	w.Instrument(ctx, false)
	if ok, _ := statementsExt(t, db); ok {
		t.Fatal("pg_stat_statements created without consent")
	}
	w.Restore(ctx, 0)
	w.CreateStatements = true
	notes := w.Instrument(ctx, false)
	ok, comment := statementsExt(t, db)
	if !ok || !strings.HasPrefix(comment, "writeamp: created by writeamp") {
		t.Fatalf("with consent: installed %v, comment %q, notes %v", ok, comment, notes)
	}
	w.Restore(ctx, 0)
	if ok, _ := statementsExt(t, db); ok {
		t.Error("the pg_stat_statements writeamp created is still there after Restore")
	}
}

// ownKept: the database's own pg_stat_statements is read with consent given
// and never dropped.
func ownKept(t *testing.T, db *sql.DB, s dialects.Server) {
	t.Helper()
	ctx := context.Background()
	w := window(t, db, s)
	w.CreateStatements = true
	w.Instrument(ctx, false)
	w.Restore(ctx, 0)
	if ok, comment := statementsExt(t, db); !ok || strings.HasPrefix(comment, "writeamp:") {
		t.Errorf("the database's own pg_stat_statements: installed %v, comment %q after a run with consent", ok, comment)
	}
}

// TestStatementsRemainderAfterDDL: right after DDL a backend's first
// statements prune catalog pages (records with full-page images) outside
// any statement's count, and pg_stat_wal has not always been told of them.
// The log no statement accounts for is held to the test's own truth: the
// WAL pg_walinspect reads between the result's marks minus the statements'
// own pg_stat_statements difference, within 20% (writeamp's own reads and
// the WAL of commit records and page headers make the tolerance).
func TestStatementsRemainderAfterDDL(t *testing.T) {
	t.Parallel()
	srv := pgmatrix.Start(t, 15)
	preloadStatements(t, srv)
	db, s := openPG(t, srv.DSN)
	mustExec(t, db, `CREATE EXTENSION pg_stat_statements`)
	mustExec(t, db, `CREATE EXTENSION pg_walinspect`)
	mustExec(t, db, `CREATE SCHEMA ua`)
	mustExec(t, db, `CREATE TABLE ua.s (id int PRIMARY KEY, k int, v int, note text) WITH (fillfactor = 70)`)
	mustExec(t, db, `CREATE INDEX s_k ON ua.s (k)`)
	for i := 1; i <= 10; i++ {
		mustExec(t, db, fmt.Sprintf(`CREATE TABLE ua.junk%d (a int, b text, c int, d int)`, i))
		mustExec(t, db, fmt.Sprintf(`DROP TABLE ua.junk%d`, i))
	}
	script := []string{"insert into ua.s", "update ua.s set k", "update ua.s set note", "delete from ua.s"}
	before := map[string]stmtTruth{}
	for _, p := range script {
		before[p] = readStatements(t, db, p)
	}
	run := wrapped(t, db, s, "ua", psqlCmd(t, srv.DSN,
		`insert into ua.s (id, k, v, note) select g, g, g, 'x' from generate_series(1, 100) g`,
		`update ua.s set k = k + 1 where id between 1 and 50`,
		`update ua.s set note = note || 'y' where id between 51 and 100`,
		`delete from ua.s where id between 1 and 10`))
	var own float64
	for _, p := range script {
		st := readStatements(t, db, p)
		if st.calls-before[p].calls != 1 {
			t.Fatalf("%s: %v calls in the window, want 1", p, st.calls-before[p].calls)
		}
		own += st.walBytes - before[p].walBytes
	}
	a, b := run.Window.Marks["wal_insert_lsn_before"], run.Window.Marks["wal_insert_lsn_after"]
	var window float64
	if err := db.QueryRow(`SELECT coalesce(sum(record_length), 0)::float8 FROM pg_get_wal_records_info($1, $2)`, a, b).Scan(&window); err != nil {
		t.Fatalf("window %s..%s: %v", a, b, err)
	}
	truth := window - own
	rest := run.Statements.Remainder
	if rest == nil || truth <= 0 {
		t.Fatalf("remainder %v; truth %v (window %v, statements %v)", rest, truth, window, own)
	}
	if d := math.Abs(rest.V() - truth); d > 0.2*truth {
		t.Errorf("log of no statement %v (%s, %s), truth %v: off by %.0f%%", rest.V(), rest.Exactness, rest.Source, truth, 100*d/truth)
	}
	if db := run.Database["statement_log_bytes_remainder"]; db.V() != rest.V() {
		t.Errorf("database figure %v, section %v", db.V(), rest.V())
	}
	if !strings.Contains(rest.Note, "% of the window's") {
		t.Errorf("no share of the window in %q", rest.Note)
	}
	t.Logf("window %v B, the 4 statements %v B: truth %v B; writeamp %v B (%s; %s; pg_stat_wal %v B)", window, own, truth, rest.V(), rest.Exactness, rest.Source, run.Database["log_bytes_stat"].V())
}
