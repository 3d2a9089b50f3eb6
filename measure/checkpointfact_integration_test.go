package measure_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/collectors"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/internal/testing/pgmatrix"
	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/reports"
)

// TestEveryReportSaysTheWindowFollowsACheckpoint measures, on every major,
// an UPDATE of every row of a table written before the window: the window
// opens right after writeamp's CHECKPOINT, so each page's first change
// writes a full-page image. Every report (table, markdown, html, json) must
// say so with the window's share of full-page images, which is fpi_bytes /
// log_bytes of the same run, and the JSON's log_bytes must carry it as its
// note. (On main at c03a1ed no report said it.)
func TestEveryReportSaysTheWindowFollowsACheckpoint(t *testing.T) {
	t.Parallel()
	pgmatrix.EachParallel(t, func(t *testing.T, srv *pgmatrix.Server) {
		ctx := context.Background()
		db := srv.Open(t)
		mustExec(t, db, `CREATE SCHEMA cp`)
		mustExec(t, db, `CREATE TABLE cp.t (id int PRIMARY KEY, v text) WITH (autovacuum_enabled = false)`)
		mustExec(t, db, `INSERT INTO cp.t SELECT g, md5(g::text) FROM generate_series(1, 5000) g`)
		s, err := pg.Dialect{}.Probe(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		res, code, err := (&measure.Wrapped{Window: window(t, db, s), Scope: collectors.Scope{Schemas: []string{"cp"}},
			Command: psqlCmd(t, srv.DSN, `UPDATE cp.t SET v = v || 'x'`), Stdout: io.Discard}).Run(ctx)
		if err != nil || code != 0 {
			t.Fatalf("measure: exit %d, %v", code, err)
		}
		run := &res.Runs[0]
		fpi, total := run.Database["fpi_bytes"], run.Database["log_bytes"]
		if !fpi.OK() || !total.OK() || fpi.V() <= 0 {
			t.Fatalf("no full-page images in the window: fpi_bytes %+v, log_bytes %+v", fpi, total)
		}
		want := fmt.Sprintf("(here %.0f of the %.0f log bytes, %.0f%%, were full-page images)", fpi.V(), total.V(), 100*fpi.V()/total.V())
		t.Logf("fpi_bytes %.0f of log_bytes %.0f", fpi.V(), total.V())
		if !strings.Contains(total.Note, "right after a CHECKPOINT") || !strings.Contains(total.Note, want) {
			t.Errorf("log_bytes note %q does not say the window follows a checkpoint %s", total.Note, want)
		}
		for _, f := range []string{"table", "markdown", "html", "json"} {
			var b bytes.Buffer
			if err := reports.Render(&b, f, res, reports.Options{}); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			out := b.String()
			if f == "html" {
				out = strings.ReplaceAll(out, "&#37;", "%")
			}
			if !strings.Contains(out, "right after a CHECKPOINT") || !strings.Contains(out, want) {
				t.Errorf("the %s report does not say the window follows a checkpoint %s", f, want)
			}
		}
	})
}
