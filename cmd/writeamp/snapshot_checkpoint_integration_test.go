package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/internal/testing/pgmatrix"
	"github.com/writeamp/writeamp/result"
)

// snapshot --checkpoint, an UPDATE of every row written before it, snapshot,
// diff --dsn: the window starts right after the CHECKPOINT, so each page's
// first change writes a full-page image, and the diff's report must say so
// beside the log bytes with the window's full-page-image share (fpi_bytes /
// log_bytes of the same diff), in its JSON and its table. (Before, only
// snapshot's stderr said it.)
func TestSnapshotCheckpointIsInTheDiff(t *testing.T) {
	t.Parallel()
	srv := pgmatrix.Start(t, 16)
	db := srv.Open(t)
	for _, q := range []string{`CREATE TABLE c (id int PRIMARY KEY, v text) WITH (autovacuum_enabled = false)`,
		`INSERT INTO c SELECT g, md5(g::text) FROM generate_series(1, 5000) g`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	before, after, diff := filepath.Join(dir, "b.json"), filepath.Join(dir, "a.json"), filepath.Join(dir, "d.json")
	if _, e, err := run(t, "snapshot", "--dsn", srv.DSN, "--checkpoint", "-o", before); err != nil {
		t.Fatalf("%v\n%s", err, e)
	}
	if _, err := db.Exec(`UPDATE c SET v = v || 'x'`); err != nil {
		t.Fatal(err)
	}
	if _, e, err := run(t, "snapshot", "--dsn", srv.DSN, "-o", after); err != nil {
		t.Fatalf("%v\n%s", err, e)
	}
	if _, e, err := run(t, "diff", "--dsn", srv.DSN, "--format", "json", "-o", diff, before, after); err != nil {
		t.Fatalf("%v\n%s", err, e)
	}
	r, err := result.Read(diff)
	if err != nil {
		t.Fatal(err)
	}
	d := r.Runs[0].Database
	fpi, total := d["fpi_bytes"], d["log_bytes"]
	if !fpi.OK() || !total.OK() || fpi.V() <= 0 {
		t.Fatalf("no full-page images in the window: fpi_bytes %+v, log_bytes %+v", fpi, total)
	}
	want := fmt.Sprintf("(here %.0f of the %.0f log bytes, %.0f%%, were full-page images)", fpi.V(), total.V(), 100*fpi.V()/total.V())
	t.Logf("fpi_bytes %.0f of log_bytes %.0f", fpi.V(), total.V())
	if !strings.Contains(total.Note, "right after a CHECKPOINT") || !strings.Contains(total.Note, want) {
		t.Errorf("log_bytes note %q does not say the window follows a checkpoint %s", total.Note, want)
	}
	if !strings.Contains(strings.Join(r.Runs[0].Warnings, "\n"), want) {
		t.Errorf("the warnings do not say it: %q", r.Runs[0].Warnings)
	}
	out, e, err := run(t, "diff", "--dsn", srv.DSN, before, after)
	if err != nil {
		t.Fatalf("%v\n%s", err, e)
	}
	if !strings.Contains(out, "right after a CHECKPOINT") || !strings.Contains(out, want) {
		t.Errorf("the table report does not say the window follows a checkpoint %s:\n%s", want, out)
	}
}
