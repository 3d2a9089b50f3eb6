package postgres

import (
	"math/rand/v2"
	"testing"

	"github.com/writeamp/writeamp/collectors"
)

// pageSet counts what a set of block numbers would, across leaves and at
// the ends of the block range.
func TestPageSetCountsDistinctBlocks(t *testing.T) {
	var s pageSet
	want := map[uint32]bool{}
	r := rand.New(rand.NewPCG(1, 2))
	add := func(b uint32) {
		s.add(b)
		want[b] = true
	}
	for _, b := range []uint32{0, 0, 63, 64, 65535, 65536, 1<<32 - 1, 1<<32 - 1} {
		add(b)
	}
	// Blocks of 64 leaves spread over the whole range, and one leaf at its
	// top: a random uint32 each time would allocate a leaf (8 KiB) for most.
	var highs [64]uint32
	for i := range highs {
		highs[i] = r.Uint32N(1 << 16)
	}
	highs[0] = 1<<16 - 1
	for i := 0; i < 100000; i++ {
		add(r.Uint32N(300000))
		add(highs[r.IntN(len(highs))]<<16 | r.Uint32N(1<<16))
	}
	if s.n != len(want) {
		t.Errorf("pageSet counted %d blocks, want %d", s.n, len(want))
	}
}

func TestRecordsEndAtThePageBoundary(t *testing.T) {
	const seg = 16 << 20
	for mark, want := range map[string]string{
		"0/1518018": "0/1518000", // past a short page header
		"1/1000028": "1/1000000", // past a segment's long page header
		"0/19C2028": "0/19C2028", // a record continued from the page before ends there
		"0/1000018": "0/1000018", // inside a long header: not an insert position, left alone
		"0/1518020": "0/1518020", // a record ended there
		"0/1517FF8": "0/1517FF8",
		"bad":       "bad",
	} {
		if got := recordsEnd(mark, seg); got != want {
			t.Errorf("recordsEnd(%s) = %s, want %s", mark, got, want)
		}
	}
}

// A transaction's records are counted under its operation once, whichever
// of its records comes first, at every position of the window's list.
func TestAttributeCountsEachTransactionOnce(t *testing.T) {
	var x collectors.Xacts
	for id := uint32(100); id < 300; id++ {
		x.Add(id, []string{"login", "refresh"}[id%2])
	}
	w := walWindow{xacts: &x, ops: &collectors.OperationLog{}, seen: newBitset(x.Len())}
	k := relKey{level: "table", obj: "t"}
	for round := 0; round < 3; round++ {
		for id := uint32(90); id < 310; id++ {
			w.attribute(id, k, &walRow{recs: 1, bytes: 10})
		}
	}
	if got := w.ops.Op("login").Xacts + w.ops.Op("refresh").Xacts; got != 200 {
		t.Fatalf("%d transactions counted, want 200 (each once)", got)
	}
	if got := w.ops.Op("").Xacts; got != 0 {
		t.Fatalf("the unattributed remainder counted %d transactions, want 0", got)
	}
}
