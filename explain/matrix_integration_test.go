package explain_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/explain"
	"github.com/writeamp/writeamp/internal/testing/pgmatrix"
	"github.com/writeamp/writeamp/internal/testing/testenv"
	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/result"
)

// matrixN is how many rows (ids 1..matrixN) each case's UPDATE writes, one
// statement and one transaction per row.
const matrixN = 300

// A matrix case: a table (mx.c_NAME, {t} in the SQL; {n} is c_NAME) and an
// UPDATE run once per id. hot and deps are what explain must predict, per
// major where PostgreSQL's rule differs by major; measured says what the
// run must show: "all" or "none" of the updates HOT, or "some" (fewer than
// all: the dependency the prediction names did bite).
type matrixCase struct {
	name, schema, update string
	hot                  func(major int) (hot, deps, measured string)
}

func fixed(hot, deps, measured string) func(int) (string, string, string) {
	return func(int) (string, string, string) { return hot, deps, measured }
}

const (
	pageDep = "page free space"
	// tAB: a small table with room on every page (fillfactor 50).
	tAB = `CREATE TABLE {t} (id int PRIMARY KEY, a int NOT NULL, b int NOT NULL, c int, s text NOT NULL DEFAULT 'v')
  WITH (fillfactor = 50, autovacuum_enabled = false);
INSERT INTO {t} SELECT g, g, g, g FROM generate_series(1, 2000) g;`
)

var matrixCases = []matrixCase{
	{"btree_set", tAB + `CREATE INDEX {n}_a ON {t} (a);`, "a = a + 1", fixed("no", "", "none")},
	{"btree_other", tAB + `CREATE INDEX {n}_a ON {t} (a);`, "b = b + 1", fixed("possible", pageDep, "all")},
	{"same_value", tAB + `CREATE INDEX {n}_a ON {t} (a);`, "a = a", fixed("possible", pageDep, "all")},
	{"constant", tAB + `CREATE INDEX {n}_a ON {t} (a);`, "a = 5", fixed("possible", "new value equals old,"+pageDep, "some")},
	{"nullable", tAB + `CREATE INDEX {n}_c ON {t} (c);`, "c = c + 1", fixed("possible", "old value is null,"+pageDep, "none")},
	{"expression", tAB + `CREATE INDEX {n}_e ON {t} ((a * 2));`, "a = a + 1", fixed("no", "", "none")},
	{"expression_other", tAB + `CREATE INDEX {n}_e ON {t} ((a * 2));`, "b = b + 1", fixed("possible", pageDep, "all")},
	{"partial_pred_set", tAB + `CREATE INDEX {n}_p ON {t} (a) WHERE b > 1000;`, "b = b + 1", fixed("no", "", "none")},
	{"partial_pred_other", tAB + `CREATE INDEX {n}_p ON {t} (a) WHERE b > 1000;`, "c = c + 1", fixed("possible", pageDep, "all")},
	{"brin", tAB + `CREATE INDEX {n}_brin ON {t} USING brin (b) WITH (pages_per_range = 1);`, "b = b + 1000000",
		func(major int) (string, string, string) {
			if major >= 16 { // amsummarizing: BRIN columns do not block HOT
				return "possible", pageDep, "all"
			}
			return "no", "", "none"
		}},
	{"hash", tAB + `CREATE INDEX {n}_h ON {t} USING hash (a);`, "a = a + 1", fixed("no", "", "none")},
	{"gin", tAB + `CREATE INDEX {n}_g ON {t} USING gin (to_tsvector('simple', s));`, "s = s || 'x'", fixed("no", "", "none")},
	{"gist", tAB + `CREATE INDEX {n}_r ON {t} USING gist (int4range(a, a + 10));`, "a = a + 1", fixed("no", "", "none")},
	{"include", tAB + `CREATE INDEX {n}_i ON {t} (c) INCLUDE (b);`, "b = b + 1", fixed("no", "", "none")},
	{"unique", tAB + `CREATE UNIQUE INDEX {n}_u ON {t} (a);`, "a = a + 100000", fixed("no", "", "none")},
	{"multicolumn_second", tAB + `CREATE INDEX {n}_ab ON {t} (a, b);`, "b = b + 1", fixed("no", "", "none")},
	{"full_page", `CREATE TABLE {t} (id int PRIMARY KEY, a int NOT NULL, b int NOT NULL, pad text NOT NULL)
  WITH (fillfactor = 100, autovacuum_enabled = false);
INSERT INTO {t} SELECT g, g, g, repeat('x', 200) FROM generate_series(1, 2000) g;
CREATE INDEX {n}_a ON {t} (a);`, "b = b + 1", fixed("possible", pageDep, "some")},
	{"toast", `CREATE TABLE {t} (id int PRIMARY KEY, big text NOT NULL, n int NOT NULL)
  WITH (fillfactor = 50, autovacuum_enabled = false, toast.autovacuum_enabled = false);
ALTER TABLE {t} ALTER COLUMN big SET STORAGE EXTERNAL;
INSERT INTO {t} SELECT g, repeat(md5(g::text), 192), 0 FROM generate_series(1, 400) g;`, "big = big || 'x'", fixed("possible", pageDep, "all")},
	{"toast_same", `CREATE TABLE {t} (id int PRIMARY KEY, big text NOT NULL, n int NOT NULL)
  WITH (fillfactor = 50, autovacuum_enabled = false, toast.autovacuum_enabled = false);
ALTER TABLE {t} ALTER COLUMN big SET STORAGE EXTERNAL;
INSERT INTO {t} SELECT g, repeat(md5(g::text), 192), 0 FROM generate_series(1, 400) g;`, "big = big, n = n + 1", fixed("possible", pageDep, "all")},
}

// TestExplainMatrix holds explain's UPDATE prediction to PostgreSQL's own
// rules on every major: each case's table gets matrixN single-row UPDATEs
// in one measured window, and per case the prediction's HOT and per-index
// entries either match the measured counts (HOT from pg_stat_user_tables,
// b-tree leaf inserts and the other methods' records from the WAL, TOAST
// index entries from the TOAST table's inserted chunks) or the prediction
// names the dependency that decides them. Every index that got entries must
// be in the prediction.
func TestExplainMatrix(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("psql"); err != nil {
		if testenv.CI() {
			t.Fatal("psql not installed under CI=true")
		}
		t.Skip("psql not installed")
	}
	pgmatrix.EachParallel(t, func(t *testing.T, srv *pgmatrix.Server) {
		ctx := context.Background()
		db, err := pg.Dialect{}.Open(ctx, srv.DSN)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		s, err := pg.Dialect{}.Probe(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		var setup strings.Builder
		setup.WriteString("CREATE SCHEMA mx;\n")
		for _, c := range matrixCases {
			setup.WriteString(strings.NewReplacer("{t}", "mx.c_"+c.name, "{n}", "c_"+c.name).Replace(c.schema) + "\n")
		}
		if _, err := db.Exec(setup.String()); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec("VACUUM ANALYZE"); err != nil {
			t.Fatal(err)
		}
		preds := map[string]explain.Prediction{}
		var work strings.Builder
		for _, c := range matrixCases {
			stmt := fmt.Sprintf("UPDATE mx.c_%s SET %s WHERE id = ", c.name, c.update)
			rep, err := explain.File(ctx, db, s, stmt+"1")
			if err != nil || len(rep.Predictions) != 1 {
				t.Fatalf("%s: explain: %v %+v", c.name, err, rep)
			}
			preds[c.name] = rep.Predictions[0]
			for i := 1; i <= matrixN; i++ {
				fmt.Fprintf(&work, "%s%d;\n", stmt, i)
			}
		}
		toastBefore := toastInserts(t, db)
		file := filepath.Join(t.TempDir(), "work.sql")
		if err := os.WriteFile(file, []byte(work.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		run := measuredIn(t, db, s, []string{"mx"}, []string{"psql", srv.DSN, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", file})
		toastAfter := toastInserts(t, db)
		t.Logf("window: %d updates in %v", matrixN*len(matrixCases), time.Since(start).Round(time.Millisecond))
		held := 0
		for _, c := range matrixCases {
			if checkCase(t, srv.Major, c, preds[c.name], run, toastAfter["c_"+c.name]-toastBefore["c_"+c.name]) {
				held++
			}
		}
		t.Logf("PostgreSQL %d: %d of %d cases held", srv.Major, held, len(matrixCases))
	})
}

// toastInserts is each mx table's TOAST table's inserted tuples: one TOAST
// index entry each. It waits until the counters stop moving (the
// statistics of a finished session arrive a little later).
func toastInserts(t *testing.T, db *sql.DB) map[string]float64 {
	t.Helper()
	read := func() map[string]float64 {
		rows, err := db.Query(`SELECT c.relname, coalesce(s.n_tup_ins, 0) FROM pg_class c
			JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'mx'
			JOIN pg_stat_all_tables s ON s.relid = c.reltoastrelid WHERE c.relkind = 'r'`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]float64{}
		for rows.Next() {
			var n string
			var v float64
			if err := rows.Scan(&n, &v); err != nil {
				t.Fatal(err)
			}
			out[n] = v
		}
		return out
	}
	last := read()
	for i := 0; i < 20; i++ {
		time.Sleep(300 * time.Millisecond)
		if _, err := db.Exec("SELECT pg_stat_clear_snapshot()"); err != nil {
			t.Fatal(err)
		}
		now := read()
		if fmt.Sprint(now) == fmt.Sprint(last) && i >= 2 {
			return now
		}
		last = now
	}
	return last
}

// checkCase holds one case's prediction to its measured counts; true when
// it held.
func checkCase(t *testing.T, major int, c matrixCase, p explain.Prediction, run *result.Run, toastEntries float64) bool {
	t.Helper()
	ok := true
	fail := func(format string, a ...any) {
		ok = false
		t.Errorf("pg%d %s: "+format, append([]any{major, c.name}, a...)...)
	}
	wantHOT, wantDeps, measured := c.hot(major)
	if p.HOT != wantHOT || strings.Join(p.DependsOn, ",") != wantDeps {
		fail("predicted HOT %q depending on %q, PostgreSQL's rule gives %q depending on %q", p.HOT, p.DependsOn, wantHOT, wantDeps)
	}
	tb := run.Table("c_" + c.name)
	if tb == nil {
		fail("table not measured")
		return false
	}
	hot, upd := tb.Metrics["hot_updates"], tb.Metrics["rows_updated"]
	if !hot.OK() || !upd.OK() || upd.V() != matrixN {
		fail("measured %v rows updated, %v HOT: want %d updates counted", upd.V(), hot.V(), matrixN)
		return false
	}
	h, n := hot.V(), matrixN-hot.V()
	switch {
	case p.HOT == "no" && h != 0:
		fail("predicted not HOT (certain), measured %v of %d HOT", h, matrixN)
	case p.HOT == "possible" && len(p.DependsOn) == 0:
		fail("HOT possible with no dependency named")
	}
	switch measured {
	case "all":
		if n != 0 {
			fail("setup: %v of %d updates not HOT, the case wants all HOT", n, matrixN)
		}
	case "none":
		if h != 0 {
			fail("setup: %v of %d updates HOT, the case wants none", h, matrixN)
		}
	case "some":
		if n == 0 {
			fail("setup: every update HOT, the case wants the dependency to bite")
		}
	}
	hits := map[string]explain.Hit{}
	for _, x := range p.Indexes {
		hits[x.Index] = x
	}
	var toastHit *explain.Hit
	for _, x := range p.Indexes {
		if strings.HasPrefix(x.Index, "pg_toast.") {
			x := x
			toastHit = &x
		}
	}
	for _, ix := range run.Indexes {
		if ix.Table != "c_"+c.name {
			continue
		}
		x, listed := hits[ix.Name]
		if strings.Contains(strings.ToLower(ix.Name), "toast") && toastHit != nil {
			x, listed = *toastHit, true // measure names it after its table
		}
		got, what := ix.Metrics[result.LeafInserts.Name], "leaf inserts"
		btree := ix.Info["method"] == "btree"
		if !btree {
			got, what = ix.Metrics[result.LogRecords.Name], ix.Info["method"]+" records"
		}
		if !got.OK() || got.Exactness != result.Exact {
			fail("index %s: %s not exact (%s: %s)", ix.Name, what, got.Exactness, got.Note)
			continue
		}
		if !listed {
			if got.V() > 0 {
				fail("index %s got %v %s and is not in the prediction", ix.Name, got.V(), what)
			}
			continue
		}
		if x.Certainty == explain.Unknown {
			if got.V() > 0 && !slices.Contains(x.DependsOn, explain.DepValueSize) {
				fail("index %s: %v %s, count unknown but no dependency named", ix.Name, got.V(), what)
			}
			continue
		}
		lo, hi := bounds(x, h, n)
		if !btree && hi > 0 && x.Certainty == explain.Exact {
			// One insertion can be several records (a hash bucket split, a
			// GIN pending-list page, a GiST page split).
			hi = hi*1.25 + 5
		}
		if got.V() < lo || got.V() > hi {
			fail("index %s: predicted %v per row (%s, if not HOT %v), measured %v %s for %v HOT and %v non-HOT updates, outside [%v, %v]",
				ix.Name, x.Entries, x.Certainty, ifNot(x), got.V(), what, h, n, lo, hi)
		}
	}
	if toastEntries > 0 && (toastHit == nil || toastHit.Certainty != explain.Unknown || !slices.Contains(toastHit.DependsOn, explain.DepValueSize)) {
		fail("the TOAST index got %v entries; prediction %+v", toastEntries, toastHit)
	}
	if toastHit != nil && toastHit.Certainty == explain.Exact && toastEntries != toastHit.Entries*matrixN {
		fail("TOAST index: predicted %v per row (exact), measured %v entries", toastHit.Entries, toastEntries)
	}
	if ok {
		t.Logf("pg%d %s: HOT %s %v; measured %v of %d HOT; TOAST index entries %v", major, c.name, p.HOT, p.DependsOn, h, matrixN, toastEntries)
	}
	return ok
}

func ifNot(x explain.Hit) any {
	if x.IfNotHOT == nil {
		return "-"
	}
	return *x.IfNotHOT
}

// bounds is the range of entries a hit allows for h HOT and n non-HOT
// updates: Entries per HOT row (per row when the prediction is "no", where
// h is 0), IfNotHOT per non-HOT row; an upper bound starts at 0.
func bounds(x explain.Hit, h, n float64) (float64, float64) {
	perHOT, perNot := x.Entries, x.Entries
	if x.IfNotHOT != nil {
		perNot = *x.IfNotHOT
	}
	hi := perHOT*h + perNot*n
	if x.Certainty != explain.Exact {
		return 0, hi
	}
	return hi, hi
}

func measuredIn(t *testing.T, db *sql.DB, s dialects.Server, schemas, cmd []string) *result.Run {
	t.Helper()
	d, _ := dialects.Get(s.Dialect)
	win, err := measure.NewWindow(dialects.Target{DB: db, Dialect: d, Server: s}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, code, err := (&measure.Wrapped{Window: win, Scope: collectors.Scope{Schemas: schemas}, Command: cmd, Stdout: io.Discard}).Run(context.Background())
	if err != nil || code != 0 {
		t.Fatalf("measure: exit %d, %v", code, err)
	}
	return &res.Runs[0]
}
