package measure_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/internal/testing/pgmatrix"
	"github.com/writeamp/writeamp/measure"
)

// TestWrappedCheckpoint: measure's --checkpoint places the window as run's
// does, on a server of the test's own (no other session checkpoints it).
// "before" opens it after a CHECKPOINT (every updated page writes a
// full-page image); "none" without one; "steady" after a CHECKPOINT and a
// warm-up run of the command outside the window, so the measured run
// writes no full-page image of the pages the warm-up already changed and
// the table got both runs' rows. Each result records the mode.
func TestWrappedCheckpoint(t *testing.T) {
	t.Parallel()
	srv := pgmatrix.Start(t, 15)
	db, s := openPG(t, srv.DSN)
	mustExec(t, db, `CREATE SCHEMA wc`)
	mustExec(t, db, `CREATE TABLE wc.t (id int PRIMARY KEY, v int) WITH (autovacuum_enabled = false, fillfactor = 50)`)
	mustExec(t, db, `INSERT INTO wc.t SELECT g, 0 FROM generate_series(1, 5000) g`)
	fpiShare := map[string]float64{}
	for _, cp := range []string{"before", "none", "steady"} {
		var v0 int
		if err := db.QueryRow(`SELECT max(v) FROM wc.t`).Scan(&v0); err != nil {
			t.Fatal(err)
		}
		w := &measure.Wrapped{Window: window(t, db, s), Scope: collectors.Scope{Schemas: []string{"wc"}},
			Command: psqlCmd(t, srv.DSN, `update wc.t set v = v + 1`), Stdout: io.Discard, Checkpoint: cp}
		res, code, err := w.Run(context.Background())
		if err != nil || code != 0 {
			t.Fatalf("%s: exit %d, %v", cp, code, err)
		}
		if got := res.Workload.Params["checkpoint"]; got != cp {
			t.Errorf("%s: the result records checkpoint %v", cp, got)
		}
		if s.Prop(dialects.PropNoCheckpoint) != "" {
			t.Errorf("%s: the window's server kept %q", cp, s.Prop(dialects.PropNoCheckpoint))
		}
		run := res.Runs[0]
		warnings := strings.Join(run.Warnings, "\n")
		after := strings.Contains(warnings, dialects.AfterCheckpoint)
		if after != (cp == "before") || (cp != "before" && !strings.Contains(warnings, "--checkpoint "+cp)) {
			t.Errorf("%s: warnings %q", cp, run.Warnings)
		}
		var v1 int
		if err := db.QueryRow(`SELECT max(v) FROM wc.t`).Scan(&v1); err != nil {
			t.Fatal(err)
		}
		runs := 1
		if cp == "steady" {
			runs = 2 // the warm-up and the measured run
		}
		if v1-v0 != runs {
			t.Errorf("%s: the command ran %d times, want %d", cp, v1-v0, runs)
		}
		if upd := run.Tables[0].Metrics["rows_updated"]; upd.V() != 5000 {
			t.Errorf("%s: the window counted %v rows updated, want one run's 5000", cp, upd.V())
		}
		// The table's own: catalog pages pruned by the command's session
		// write full-page images in every mode.
		fpi, total := run.Tables[0].Metrics["fpi_bytes"], run.Tables[0].Metrics["log_bytes"]
		fpiShare[cp] = fpi.V() / total.V()
		t.Logf("%s: full-page images %.0f of the table's %.0f log bytes (window: %.0f of %.0f)", cp, fpi.V(), total.V(), run.Database["fpi_bytes"].V(), run.Database["log_bytes"].V())
	}
	if fpiShare["before"] < 0.2 || fpiShare["steady"] > fpiShare["before"]/4 {
		t.Errorf("full-page image shares %v: want a large share of the table's log after a CHECKPOINT and far less in steady state", fpiShare)
	}
}
