package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/writeamp/writeamp/explain"
	"github.com/writeamp/writeamp/internal/testing/pgmatrix"
	"github.com/writeamp/writeamp/internal/testing/testenv"
	"github.com/writeamp/writeamp/result"
)

const (
	explainSchema = `CREATE SCHEMA st;
CREATE TABLE st.t (id int PRIMARY KEY, v int NOT NULL, pad text) WITH (fillfactor = 50, autovacuum_enabled = false);
INSERT INTO st.t SELECT g, g, '' FROM generate_series(1, 200) g;`
	// The migration indexes the column the workload's UPDATE sets.
	explainMig  = "CREATE INDEX t_v ON st.t (v);\n"
	explainWork = "UPDATE st.t SET v = v + 1000 WHERE id <= 100;\n"
	explainRows = 100
)

// TestExplainMigrationThenMeasure: `writeamp explain mig.sql work.sql`
// before the migration is applied predicts the UPDATE with mig.sql's index:
// not HOT, one entry per row in t_pkey and in the new t_v. Then mig.sql is
// applied and `writeamp measure -- psql -f work.sql` measures the UPDATE;
// each index's measured leaf inserts (exact, from the WAL) must equal the
// predicted entries per row times the rows updated, and no update may be
// HOT. The prediction of work.sql alone (the catalog has no t_v yet: HOT
// possible, no entries) must disagree with the same measurement, so the
// comparison fails a wrong prediction.
func TestExplainMigrationThenMeasure(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("psql"); err != nil {
		if testenv.CI() {
			t.Fatal("psql not installed under CI=true")
		}
		t.Skip("psql not installed")
	}
	pgmatrix.EachParallel(t, func(t *testing.T, srv *pgmatrix.Server) {
		db := srv.Open(t)
		if _, err := db.Exec(explainSchema); err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		mig, work := filepath.Join(dir, "mig.sql"), filepath.Join(dir, "work.sql")
		for p, text := range map[string]string{mig: explainMig, work: explainWork} {
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		both := explainJSON(t, srv.DSN, mig, work)
		alone := explainJSON(t, srv.DSN, work)
		if len(both) != 2 || len(both[1].Predictions) != 1 || len(alone) != 1 || len(alone[0].Predictions) != 1 {
			t.Fatalf("reports: %+v alone %+v", both, alone)
		}
		pred, wrong := both[1].Predictions[0], alone[0].Predictions[0]
		if pred.HOT != "no" || pred.EntriesPerRow != 2 {
			t.Errorf("explain mig.sql work.sql: HOT %q, %v entries per row (%+v); want not HOT, 2", pred.HOT, pred.EntriesPerRow, pred.Indexes)
		}
		if _, err := db.Exec(explainMig); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "run.json")
		if _, e, err := run(t, "measure", "-q", "--dsn", srv.DSN, "--schema", "st", "--format", "json", "-o", out, "--",
			"psql", srv.DSN, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", work); err != nil {
			t.Fatalf("measure: %v\n%s", err, e)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var res result.Result
		if err := json.Unmarshal(b, &res); err != nil || len(res.Runs) != 1 {
			t.Fatalf("measure's JSON: %v (%d runs)", err, len(res.Runs))
		}
		r := &res.Runs[0]
		measured := map[string]float64{}
		for _, name := range []string{"t_pkey", "t_v"} {
			ix := r.Index(name)
			if ix == nil {
				t.Fatalf("index %s not measured", name)
			}
			li := ix.Metrics[result.LeafInserts.Name]
			if li.Exactness != result.Exact {
				t.Fatalf("%s leaf inserts %s (%s): the WAL must be readable on a throwaway server", name, li.Exactness, li.Note)
			}
			measured[name] = li.V()
		}
		hot := r.Table("t").Metrics[result.HotUpdates.Name].V()
		if msg := disagrees(pred, measured, hot); msg != "" {
			t.Errorf("explain mig.sql work.sql: %s", msg)
		}
		if disagrees(wrong, measured, hot) == "" {
			t.Errorf("work.sql explained without mig.sql (HOT %q, %v entries per row) agrees with the measurement too: the comparison cannot fail a wrong prediction", wrong.HOT, wrong.EntriesPerRow)
		}
		t.Logf("PostgreSQL %d: predicted HOT %q, %v entries per row; measured %v HOT of %d, leaf inserts %v", srv.Major, pred.HOT, pred.EntriesPerRow, hot, explainRows, measured)
	})
}

// explainJSON runs `writeamp explain --format json FILES...` and reads its
// reports (one JSON document per file).
func explainJSON(t *testing.T, dsn string, files ...string) []explain.Report {
	t.Helper()
	out, e, err := run(t, append([]string{"explain", "--dsn", dsn, "--format", "json"}, files...)...)
	if err != nil {
		t.Fatalf("explain: %v\n%s", err, e)
	}
	var reps []explain.Report
	dec := json.NewDecoder(bytes.NewBufferString(out))
	for {
		var r explain.Report
		if err := dec.Decode(&r); errors.Is(err, io.EOF) {
			return reps
		} else if err != nil {
			t.Fatalf("explain's JSON: %v\n%s", err, out)
		}
		reps = append(reps, r)
	}
}

// disagrees says how a prediction differs from the measured window ("" if
// it does not): HOT possible means every update was HOT, not HOT that none
// was, and each index's leaf inserts are its entries per row times the rows.
func disagrees(p explain.Prediction, leaf map[string]float64, hot float64) string {
	switch {
	case p.HOT == "no" && hot != 0:
		return "predicted not HOT, measured HOT updates"
	case p.HOT == "possible" && hot != explainRows:
		return "predicted HOT possible, measured non-HOT updates"
	}
	want := map[string]float64{}
	for _, h := range p.Indexes {
		want[h.Index] = h.Entries * explainRows
	}
	for name, got := range leaf {
		if got != want[name] {
			return name + ": measured leaf inserts differ from the predicted entries"
		}
	}
	return ""
}
