package reports

import (
	"bytes"
	"encoding/json"
	"io"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/writeamp/writeamp/internal/testing/race"
	"github.com/writeamp/writeamp/result"
)

// The streamed result is byte for byte what json.Encoder with an indent
// writes: for the fixture, a large synthetic diff, and the shapes the splice
// must not be fooled by (no runs, empty and nil object lists, a value that
// spells a field's name, a migration run with its own tables).
func TestStreamedJSONIsTheEncodersBytes(t *testing.T) {
	t.Parallel()
	big := synthetic(t, 300)
	tricky := fixture(t)
	tricky.Runs[0].Warnings = append(tricky.Runs[0].Warnings, "\n      \"tables\": null <&>")
	tricky.Runs[0].Indexes[0].Name = `x"indexes": null`
	tricky.Runs[1].Tables = []result.Object{}
	tricky.Runs[1].Indexes = nil
	mig := tricky.Runs[0]
	tricky.Migration = &mig
	none := fixture(t)
	none.Runs = nil
	empty := fixture(t)
	empty.Runs = []result.Run{}
	for name, r := range map[string]*result.Result{"fixture": fixture(t), "synthetic": big, "tricky": tricky, "no runs": none, "empty runs": empty} {
		var want, got bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
		if err := writeIndented(&got, r); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			i := 0
			for i < min(got.Len(), want.Len()) && got.Bytes()[i] == want.Bytes()[i] {
				i++
			}
			t.Errorf("%s: streamed JSON differs from the encoder's at byte %d of %d/%d:\n got %q\nwant %q", name, i, got.Len(), want.Len(),
				got.Bytes()[max(0, i-40):min(got.Len(), i+40)], want.Bytes()[max(0, i-40):min(want.Len(), i+40)])
		}
	}
}

// countingWriter keeps nothing: what it is sent is only counted.
type countingWriter struct{ n int }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }

// Writing a large result holds no copy of the document: with the collector
// run often, the heap grows while it is written by a small part of its size;
// the encoder's way (compact, indented, then the caller's buffer) grows it by
// more than the document.
func TestJSONIsWrittenWithoutHoldingTheDocument(t *testing.T) {
	race.SkipHeapMeasure(t)
	r := synthetic(t, 6000)
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	grew := func(write func(io.Writer) error) (uint64, int) {
		runtime.GC()
		var m0 runtime.MemStats
		runtime.ReadMemStats(&m0)
		w := &sampler{peak: m0.HeapAlloc}
		if err := write(w); err != nil {
			t.Fatal(err)
		}
		return w.peak - m0.HeapAlloc, w.n
	}
	streamed, n := grew(func(w io.Writer) error { return writeIndented(w, r) })
	held, _ := grew(func(w io.Writer) error {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "  ")
		err := enc.Encode(r)
		w.Write(buf.Bytes())
		return err
	})
	t.Logf("%d MB of JSON: heap grew by %.1f MB streamed, %.1f MB through the encoder", n>>20, float64(streamed)/(1<<20), float64(held)/(1<<20))
	if n < 10<<20 {
		t.Fatalf("only %d bytes written: the fixture is not large", n)
	}
	// Holding the document costs about twice its size (44.8 MB for 23 MB
	// here); streaming grew 2-3.5 MB, with the encoder's buffers and what
	// the other goroutines of the run allocate in between.
	if streamed > uint64(n)/4 || streamed > held/4 {
		t.Errorf("heap grew by %d bytes writing %d bytes of JSON: the document is being held", streamed, n)
	}
}

// sampler counts what it is sent and reads the heap at the first write and
// every 64th.
type sampler struct {
	countingWriter
	peak  uint64
	calls int
}

func (s *sampler) Write(p []byte) (int, error) {
	if s.calls++; s.calls%64 == 1 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		s.peak = max(s.peak, m.HeapAlloc)
	}
	return s.countingWriter.Write(p)
}
