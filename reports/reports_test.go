package reports

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	goldenfile "github.com/writeamp/writeamp/internal/testing/golden"
	"github.com/writeamp/writeamp/result"
)

// The fixture is a real default run on PostgreSQL 15 (writeamp run --format json).
func fixture(t *testing.T) *result.Result {
	t.Helper()
	r, err := result.Read(filepath.Join("testdata", "refresh_token_pg15.json"))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, name+".golden", got)
}

func TestGoldenFormats(t *testing.T) {
	t.Parallel()
	r := fixture(t)
	for _, f := range Formats {
		var buf bytes.Buffer
		if err := Render(&buf, f, r, Options{}); err != nil {
			t.Fatal(err)
		}
		golden(t, "refresh_token_pg15."+f, buf.Bytes())
	}
}

func TestJSONRoundTripKeepsEveryNumberWithItsSource(t *testing.T) {
	t.Parallel()
	r := fixture(t)
	var buf bytes.Buffer
	if err := JSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	var back result.Result
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.SchemaVersion != 1 || len(back.Runs) != 2 {
		t.Fatalf("schema %d, %d runs", back.SchemaVersion, len(back.Runs))
	}
	n := 0
	for _, run := range back.Runs {
		all := []map[string]result.Metric{run.Database}
		for _, o := range append(run.Tables, run.Indexes...) {
			all = append(all, o.Metrics)
		}
		for _, ms := range all {
			for name, m := range ms {
				n++
				if m.Exactness == "" || m.Source == "" {
					t.Errorf("%s/%s has no exactness or source: %+v", run.Variant, name, m)
				}
				if m.Exactness == result.Unavailable && m.Note == "" {
					t.Errorf("%s/%s is unavailable without a reason", run.Variant, name)
				}
			}
		}
	}
	if n < 100 {
		t.Errorf("only %d metrics in the fixture", n)
	}
}

func TestTableShowsTheHeadlineAndItsSource(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := Render(&buf, "table", fixture(t), Options{}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"Index idx_user_session_expiration_last_refresh on offline_user_session",
		"15,000", "1,500", "-90.0%", // leaf inserts baseline -> coarse: PR #51904's 10 per login -> 1
		"+100.0 pt",     // HOT ratio
		"pg_walinspect", // the footnote naming where leaf inserts come from
		"per refresh",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q", want)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Error("no colour when not asked for")
	}
}

func TestChange(t *testing.T) {
	t.Parallel()
	one, two := 1.0, 2.0
	mk := func(v float64, per *float64) Cell {
		return Cell{Present: true, Metric: result.New(v, result.Exact, "s"), PerOp: per}
	}
	if s, v := change("leaf_inserts", []Cell{mk(10, &two), mk(5, &one)}, true); s != "-50.0%" || v != -50 {
		t.Errorf("per-op change %q %v", s, v)
	}
	if s, _ := change("hot_ratio", []Cell{mk(0.1, nil), mk(0.95, nil)}, false); s != "+85.0 pt" {
		t.Errorf("ratio change %q", s)
	}
	if s, _ := change("x", []Cell{mk(0, nil), mk(3, nil)}, false); s != "new" {
		t.Errorf("from zero %q", s)
	}
	if s, _ := change("x", []Cell{{Present: false}, mk(3, nil)}, false); s != "" {
		t.Errorf("absent object %q", s)
	}
	if s, _ := change("x", []Cell{mk(1, nil), {Present: true, Metric: result.NA("s", "why")}}, false); s != "" {
		t.Errorf("unavailable %q", s)
	}
}

func TestCheckFormat(t *testing.T) {
	t.Parallel()
	if err := CheckFormat("yaml"); err == nil || !strings.Contains(err.Error(), "--format") {
		t.Errorf("%v", err)
	}
}

func TestSingular(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"refreshes": "refresh", "logins": "login", "batches": "batch", "transactions": "transaction"} {
		if got := Singular(in); got != want {
			t.Errorf("Singular(%q) = %q", in, got)
		}
	}
}

// TestGoldenMeasureMariaDB: a real `writeamp measure` on MariaDB 10.11 (no
// operation count, no per-table row counters, binary log off). The table
// shows the per-row-changed column it announces, says which rows it divides
// by, and says under notes what every metric's note in the JSON says: why
// each n/a is n/a, and the caveats of the numbers shown.
func TestGoldenMeasureMariaDB(t *testing.T) {
	t.Parallel()
	r, err := result.Read(filepath.Join("testdata", "measure_mariadb.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"table", "markdown"} {
		var buf bytes.Buffer
		if err := Render(&buf, f, r, Options{}); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		for _, want := range []string{
			"PER ROW CHANGED", "rows changed",
			"per row changed = rows inserted + updated + deleted by the whole server (Handler_write + Handler_update + Handler_delete)",
			"n/a binlog bytes: binary logging is off",
			"n/a leaf inserts of nopk.GEN_CLUST_INDEX, t.PRIMARY, v: InnoDB keeps no per-index write counter",
			// A row no run measured is left out of the table, but not its reason.
			"n/a leaf pages, size pages of nopk.GEN_CLUST_INDEX: InnoDB did not recalculate this index's persistent statistics inside the window",
			// The caveats of numbers that are there, which only the JSON had.
			"leaf pages, size pages of t.PRIMARY, v: as of the last statistics recalculation",
			"rows inserted, rows updated, rows deleted: Handler counts are server-wide and count every storage engine", // in the catalogue's order
			"commit statements: COMMIT statements only",
		} {
			if f == "markdown" {
				want = strings.ReplaceAll(want, "PER ROW CHANGED", "per row changed")
			}
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q", f, want)
			}
		}
		golden(t, "measure_mariadb."+f, buf.Bytes())
	}
}
