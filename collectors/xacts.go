package collectors

import (
	"slices"
	"sort"
)

// Xacts is which operation each of a built-in workload's transactions was
// (transaction id to operation name), in 5 bytes per transaction: a long
// run commits millions of them per variant. A Go map held several times
// that; 8 bytes each, with a worker's list copied into the run's at the
// end, was still most of a long run's live heap.
type Xacts struct {
	names  []string // operation names, indexed by ops
	ids    []uint32 // transaction ids, sorted by Seal
	ops    []uint8  // ops[i] names ids[i]'s operation
	sealed bool
	last   int // the entry Find found last: a transaction's records come together
}

// Add records that transaction id was operation op. Adds come before Seal.
func (x *Xacts) Add(id uint32, op string) {
	x.ids = append(x.ids, id)
	x.ops = append(x.ops, x.name(op))
	x.sealed = false
}

func (x *Xacts) name(op string) uint8 {
	i := slices.Index(x.names, op)
	if i < 0 {
		if len(x.names) == 256 {
			panic("collectors.Xacts: more than 256 operation names")
		}
		x.names = append(x.names, op)
		i = len(x.names) - 1
	}
	return uint8(i)
}

// Merge moves every transaction of o into x and empties o: into an empty x
// its lists move as they are (one worker's run is not copied at all).
func (x *Xacts) Merge(o *Xacts) {
	if len(x.ids) == 0 {
		*x, *o = *o, Xacts{}
		x.sealed = false
		return
	}
	to := make([]uint8, len(o.names))
	for i, n := range o.names {
		to[i] = x.name(n)
	}
	x.ids = append(x.ids, o.ids...)
	for _, op := range o.ops {
		x.ops = append(x.ops, to[op])
	}
	x.sealed = false
	*o = Xacts{}
}

// Len is how many transactions x holds.
func (x *Xacts) Len() int { return len(x.ids) }

// byID sorts the two lists together, in place: a worker's own transactions
// come in id order, so only merged workers need it.
type byID struct{ *Xacts }

func (b byID) Len() int           { return len(b.ids) }
func (b byID) Less(i, j int) bool { return b.ids[i] < b.ids[j] }
func (b byID) Swap(i, j int) {
	b.ids[i], b.ids[j] = b.ids[j], b.ids[i]
	b.ops[i], b.ops[j] = b.ops[j], b.ops[i]
}

// Seal sorts the transactions for Find; Find seals on first use.
func (x *Xacts) Seal() {
	if !x.sealed {
		if !slices.IsSorted(x.ids) {
			sort.Stable(byID{x})
		}
		x.sealed, x.last = true, -1
	}
}

// Find is transaction id's operation and its position among x's
// transactions (0 ≤ i < Len, for a caller's per-transaction marks), or
// ok false for a transaction the workload did not name.
func (x *Xacts) Find(id uint32) (op string, i int, ok bool) {
	if x == nil || len(x.ids) == 0 {
		return "", -1, false
	}
	x.Seal()
	if x.last >= 0 && x.ids[x.last] == id {
		return x.names[x.ops[x.last]], x.last, true
	}
	i, ok = slices.BinarySearch(x.ids, id)
	if !ok {
		return "", -1, false
	}
	x.last = i
	return x.names[x.ops[i]], i, true
}
