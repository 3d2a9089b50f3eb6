package collectors

import (
	"runtime"
	"testing"

	"github.com/writeamp/writeamp/internal/testing/race"
)

func TestXactsFindsEachTransactionsOperation(t *testing.T) {
	var a, b Xacts
	a.Add(7, "login")
	a.Add(3, "refresh")
	b.Add(5, "logout")
	b.Add(4294967295, "refresh") // the largest id: no sign or overflow trouble
	a.Merge(&b)
	if a.Len() != 4 {
		t.Fatalf("Len = %d", a.Len())
	}
	seen := map[int]bool{}
	for id, want := range map[uint32]string{3: "refresh", 5: "logout", 7: "login", 4294967295: "refresh"} {
		op, i, ok := a.Find(id)
		if !ok || op != want || i < 0 || i >= a.Len() || seen[i] {
			t.Errorf("Find(%d) = %q, %d, %v; want %q at a position of its own", id, op, i, ok, want)
		}
		seen[i] = true
		if op2, i2, _ := a.Find(id); op2 != op || i2 != i {
			t.Errorf("Find(%d) again = %q, %d", id, op2, i2)
		}
	}
	for _, id := range []uint32{0, 4, 6, 8} {
		if _, _, ok := a.Find(id); ok {
			t.Errorf("Find(%d) found a transaction nobody added", id)
		}
	}
	var none *Xacts
	if _, _, ok := none.Find(3); ok {
		t.Error("a nil Xacts finds nothing")
	}
}

// TestXactsStayCompact holds the per-transaction cost that keeps a long
// run's memory flat in --logins: 1.7 million transactions (150,000
// logins, one variant) in 5 bytes each with append's slack, under 12 MiB
// (8 bytes each took 13-16 MiB), and a worker's list moved into the run's,
// not copied.
func TestXactsStayCompact(t *testing.T) {
	race.SkipHeapMeasure(t)
	const n = 1_700_000
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var x Xacts
	for i := range n {
		x.Add(uint32(i*3+1), []string{"login", "refresh", "logout", "code"}[i%4])
	}
	x.Seal()
	runtime.GC()
	runtime.ReadMemStats(&after)
	if got := after.HeapAlloc - before.HeapAlloc; got > 12<<20 {
		t.Errorf("%d transactions take %d MiB on the heap (want < 12)", n, got>>20)
	}
	var run Xacts
	runtime.ReadMemStats(&before)
	run.Merge(&x)
	runtime.ReadMemStats(&after)
	// TotalAlloc is the process's: the runtime's own goroutines allocate a
	// few KiB meanwhile. A copy of the lists would be megabytes, so 64 KiB
	// tells a move from a copy without riding on that noise.
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<10 || run.Len() != n || x.Len() != 0 {
		t.Errorf("merging into an empty list allocated %d bytes (want the lists moved, not copied), %d and %d transactions", got, run.Len(), x.Len())
	}
	x = run
	if op, _, ok := x.Find(3*1233 + 1); !ok || op != "refresh" {
		t.Errorf("Find = %q, %v", op, ok)
	}
	runtime.KeepAlive(&x)
}
