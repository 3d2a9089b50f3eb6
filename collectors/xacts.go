package collectors

import "slices"

// Xacts is which operation each of a built-in workload's transactions was
// (transaction id to operation name), in 8 bytes per transaction: a run of
// 150,000 logins commits about 1.7 million of them, which a Go map held at
// several times that (and twice while workers' maps were merged), so the
// run's memory grew with --logins.
type Xacts struct {
	names  []string // operation names; an entry's low byte indexes them
	packed []uint64 // id<<32 | name index, sorted by Seal
	sealed bool
	last   int // the entry Find found last: a transaction's records come together
}

// Add records that transaction id was operation op. Adds come before Seal.
func (x *Xacts) Add(id uint32, op string) {
	i := slices.Index(x.names, op)
	if i < 0 {
		if len(x.names) == 255 {
			panic("collectors.Xacts: more than 255 operation names")
		}
		x.names = append(x.names, op)
		i = len(x.names) - 1
	}
	x.packed = append(x.packed, uint64(id)<<32|uint64(i))
	x.sealed = false
}

// Merge adds every transaction of o.
func (x *Xacts) Merge(o *Xacts) {
	for _, p := range o.packed {
		x.Add(uint32(p>>32), o.names[p&0xff])
	}
}

// Len is how many transactions x holds.
func (x *Xacts) Len() int { return len(x.packed) }

// Seal sorts the transactions for Find; Find seals on first use.
func (x *Xacts) Seal() {
	if !x.sealed {
		slices.Sort(x.packed)
		x.sealed, x.last = true, -1
	}
}

// Find is transaction id's operation and its position among x's
// transactions (0 ≤ i < Len, for a caller's per-transaction marks), or
// ok false for a transaction the workload did not name.
func (x *Xacts) Find(id uint32) (op string, i int, ok bool) {
	if x == nil || len(x.packed) == 0 {
		return "", -1, false
	}
	x.Seal()
	if x.last >= 0 && uint32(x.packed[x.last]>>32) == id {
		return x.names[x.packed[x.last]&0xff], x.last, true
	}
	i, ok = slices.BinarySearchFunc(x.packed, id, func(p uint64, id uint32) int {
		switch v := uint32(p >> 32); {
		case v < id:
			return -1
		case v > id:
			return 1
		}
		return 0
	})
	if !ok {
		return "", -1, false
	}
	x.last = i
	return x.names[x.packed[i]&0xff], i, true
}
