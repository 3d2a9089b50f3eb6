package measure_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/measure"
)

// A snapshot taken right after `snapshot --checkpoint`'s CHECKPOINT says so
// in its file, and the diff starting from it states it as run and measure
// do; a file without the field (written before it existed) still reads,
// and its diff claims no checkpoint.
func TestSnapshotRecordsItsCheckpoint(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	t0 := start.Add(time.Hour)
	write := func(name string, f *measure.SnapshotFile) *measure.SnapshotFile {
		b, err := f.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := measure.ReadSnapshot(p)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	cp := measure.NewSnapshotFile(snap(pgServer(start), t0, 100, 40), "")
	cp.AfterCheckpoint = true
	before := write("before.json", cp)
	if !before.AfterCheckpoint {
		t.Fatal("after_checkpoint not kept in the file")
	}
	plain := write("old.json", measure.NewSnapshotFile(snap(pgServer(start), t0, 100, 40), ""))
	after := write("after.json", measure.NewSnapshotFile(snap(pgServer(start), t0.Add(time.Minute), 200, 90), ""))
	diff := func(b *measure.SnapshotFile) string {
		res, err := measure.DiffSnapshots(context.Background(), measure.DiffInput{Before: b, After: after})
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(res.Runs[0].Warnings, "\n")
	}
	if w := diff(before); !strings.Contains(w, dialects.AfterCheckpoint) {
		t.Errorf("the diff from a checkpointed snapshot does not say so: %q", w)
	}
	if w := diff(plain); strings.Contains(w, "right after a CHECKPOINT") {
		t.Errorf("a snapshot without a recorded checkpoint: %q", w)
	}
}
