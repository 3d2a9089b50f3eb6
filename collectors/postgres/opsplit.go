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
	if op != "" && !w.seen[i] {
		w.seen[i] = true
		o.Xacts++
	}
	o.Add(collectors.ObjectRef{Level: k.level, Object: k.obj}, collectors.LogFigures{
		Records: r.recs, Bytes: r.bytes, FpiBytes: r.fpiBytes, Fpis: r.fpis, LeafInserts: r.leafIns})
}
