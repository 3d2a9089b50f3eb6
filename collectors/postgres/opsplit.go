package postgres

import (
	"github.com/writeamp/writeamp/collectors"
)

// attribute adds one in-scope record (or a transaction's in-scope records of
// no relation, its commit) to the operation whose transaction wrote it. A
// record of no transaction the workload named (xid 0: pruning, a vacuum; an
// aborted attempt; another session) is unattributed, so the operations and
// that remainder together are exactly the window's log_bytes_in_scope.
func (w *walWindow) attribute(xid uint32, k relKey, r *walRow) {
	if w.ops == nil {
		return
	}
	op, i, named := w.xacts.Find(xid)
	if xid == 0 || !named {
		op = ""
	}
	o := w.ops.Op(op)
	if op != "" && w.seen.set(i) {
		o.Xacts++
	}
	o.Add(collectors.ObjectRef{Level: k.level, Object: k.obj}, collectors.LogFigures{
		Records: r.recs, Bytes: r.bytes, FpiBytes: r.fpiBytes, Fpis: r.fpis, LeafInserts: r.leafIns})
}

// bitset marks a window's transactions as counted: a bit each, not a bool,
// since a 150,000-login run commits 1.7 million of them per variant.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

// set marks i and says whether it was unmarked.
func (b bitset) set(i int) bool {
	w, m := i/64, uint64(1)<<(i%64)
	if b[w]&m != 0 {
		return false
	}
	b[w] |= m
	return true
}
