package measure

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadSnapshot: any bytes in a snapshot file give a snapshot or a
// one-line error naming the file, never a panic.
func FuzzReadSnapshot(f *testing.F) {
	f.Add([]byte(`{"kind":"writeamp-snapshot","schema_version":1,"snapshot":{"server":{"dialect":"postgres"},"taken_at":"2026-11-29T00:00:00Z","counters":[{"level":"table","object":"s.t","metric":"rows_inserted","value":1,"exactness":"exact","source":"x"}]}}`))
	f.Add([]byte(`{"schema_version":1,"runs":[]}`))
	f.Add([]byte(`{"kind":"writeamp-snapshot","schema_version":99}`))
	f.Add([]byte(`{"kind":"writeamp-snapshot","schema_version":1,"snapshot":null}`))
	f.Add([]byte("\x00\xff"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "s.json")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Skip()
		}
		s, err := ReadSnapshot(p)
		if err == nil && (s.Snapshot == nil || s.Snapshot.TakenAt.IsZero()) {
			t.Fatal("accepted a snapshot with no reading")
		}
	})
}
