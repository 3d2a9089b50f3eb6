package postgres

// The classes of transaction a row of the window belongs to (walRow.xact).
const (
	classScope uint8 = iota
	classOther
	classNone
)

var classNames = [...]string{classScope: "scope", classOther: "other", classNone: "none"}

type aggKey struct {
	db, rel int64
	class   uint8
}

// openXact is a transaction whose class is not known yet.
type openXact struct {
	scope bool
	rows  []walRow // by relation of the first block; a handful
}

// windowAgg sums a window's records as the pg_walinspect query does: per
// relation of the first block and class of transaction, plus the distinct
// pages of each scoped relation any block reference changed. It runs once
// per record, so the maps it keys by relation are looked up through a cache
// of the last few keys and the one by transaction through the last
// (consecutive records mostly share them), and the pages are bitmaps
// rather than sets.
//
// A transaction's class (it wrote a scoped relation, another one, or none)
// is known once its commit or abort record is read, the last of its
// records: its rows wait in open until then and are folded in, so what is
// held is the transactions open at a time, not every transaction of the
// window.
type windowAgg struct {
	w     *walWindow
	rows  map[aggKey]*walRow
	open  map[uint32]*openXact
	pages map[int64]*pageSet
	spare []*openXact // folded transactions, reused

	// The last few keys of rows and relations looked up, newest replacing
	// the oldest: a heap record and its indexes' records alternate, so
	// one entry missed on nearly every record (map lookups were a large
	// share of the decode, measured with make bench, docs/performance.md).
	rowKeys [recent]aggKey
	rowPtrs [recent]*walRow
	rowN    int
	relKeys [recent]relEntry
	relN    int
	lastXid uint32
	lastX   *openXact
}

// recent is how many keys windowAgg's caches hold.
const recent = 8

// relEntry is a relation looked up in w.rels: its key, whether it is
// measured, and the pages of it the window changed.
type relEntry struct {
	node int64
	key  relKey
	in   bool
	set  *pageSet
}

func newWindowAgg(w *walWindow) *windowAgg {
	return &windowAgg{w: w, rows: map[aggKey]*walRow{}, open: map[uint32]*openXact{}, pages: map[int64]*pageSet{}}
}

// scoped says whether rel of the window's database is a measured relation,
// and returns its entry (the pages it changed are the entry's set).
func (a *windowAgg) scoped(rel int64) *relEntry {
	for i := range min(a.relN, recent) {
		if e := &a.relKeys[i]; e.node == rel {
			return e
		}
	}
	e := &a.relKeys[a.relN%recent]
	a.relN++
	*e = relEntry{node: rel}
	e.key, e.in = a.w.rels[rel]
	if e.in {
		if e.set = a.pages[rel]; e.set == nil {
			e.set = &pageSet{}
			a.pages[rel] = e.set
		}
	}
	return e
}

func (a *windowAgg) add(k aggKey, r *walRow) {
	for i := range min(a.rowN, recent) {
		if a.rowKeys[i] == k {
			a.rowPtrs[i].add(r)
			return
		}
	}
	t := a.rows[k]
	if t == nil {
		t = &walRow{db: k.db, node: k.rel, xact: classNames[k.class]}
		a.rows[k] = t
	}
	a.rowKeys[a.rowN%recent], a.rowPtrs[a.rowN%recent] = k, t
	a.rowN++
	t.add(r)
}

func (a *windowAgg) xact(xid uint32) *openXact {
	if a.lastX != nil && xid == a.lastXid {
		return a.lastX
	}
	x := a.open[xid]
	if x == nil {
		if n := len(a.spare); n > 0 {
			x, a.spare = a.spare[n-1], a.spare[:n-1]
		} else {
			x = &openXact{}
		}
		a.open[xid] = x
	}
	a.lastXid, a.lastX = xid, x
	return x
}

// record adds one record.
func (a *windowAgg) record(r *walRecord) {
	var db, rel int64
	first := -1
	for i := range r.blocks {
		b := &r.blocks[i]
		if first < 0 || b.id < r.blocks[first].id {
			first = i
		}
		if int64(b.db) == a.w.dboid && b.fork == 0 {
			if e := a.scoped(int64(b.rel)); e.in {
				e.set.add(b.blk)
			}
		}
	}
	if first >= 0 {
		db, rel = int64(r.blocks[first].db), int64(r.blocks[first].rel)
	}
	var k relKey
	scoped := false
	if db == a.w.dboid {
		e := a.scoped(rel)
		k, scoped = e.key, e.in
	}
	one := walRow{db: db, node: rel, recs: 1, bytes: float64(r.totLen)}
	if n := r.fpiLen(); n > 0 {
		one.fpiBytes, one.fpis = float64(n), 1
	}
	if r.leafInsert() {
		one.leafIns = 1
	}
	if r.leafSplit() {
		one.leafSplit = 1
	}
	if r.newpageUpdate() {
		one.newpage = 1
	}
	switch {
	case scoped:
		// Scoped relations: the transaction class does not matter.
		a.add(aggKey{db, rel, classScope}, &one)
		a.w.attribute(r.xid, k, &one)
		if r.xid != 0 {
			a.xact(r.xid).scope = true
		}
	case r.xid == 0:
		a.add(aggKey{db, rel, classNone}, &one)
	default:
		x := a.xact(r.xid)
		i := len(x.rows) - 1
		for ; i >= 0; i-- {
			if x.rows[i].db == db && x.rows[i].node == rel {
				break
			}
		}
		if i < 0 {
			x.rows = append(x.rows, walRow{db: db, node: rel})
			i = len(x.rows) - 1
		}
		x.rows[i].add(&one)
	}
	if ended, subs := xactEnd(r); ended {
		a.fold(r.xid)
		for _, sub := range subs {
			a.fold(sub)
		}
	}
}

// fold adds an ended transaction's rows under its class.
func (a *windowAgg) fold(xid uint32) {
	x := a.open[xid]
	if x == nil {
		return
	}
	delete(a.open, xid)
	if a.lastX == x {
		a.lastX = nil
	}
	class := classNone
	for _, r := range x.rows {
		if r.node != 0 {
			class = classOther
		}
	}
	if x.scope {
		class = classScope
	}
	for i := range x.rows {
		a.add(aggKey{x.rows[i].db, x.rows[i].node, class}, &x.rows[i])
		if class == classScope && x.rows[i].node == 0 {
			a.w.attribute(xid, relKey{}, &x.rows[i]) // its commit record: in scope with it
		}
	}
	x.scope, x.rows = false, x.rows[:0]
	a.spare = append(a.spare, x)
}

// result folds what is still open (at the window's end, or prepared) and
// returns the rows and the distinct pages per scoped relation.
func (a *windowAgg) result() ([]walRow, map[int64]float64) {
	for xid := range a.open {
		a.fold(xid)
	}
	out := make([]walRow, 0, len(a.rows))
	for _, r := range a.rows {
		out = append(out, *r)
	}
	counts := make(map[int64]float64, len(a.pages))
	for rel, set := range a.pages {
		if set.n > 0 {
			counts[rel] = float64(set.n)
		}
	}
	return out, counts
}

// pageSet is a set of block numbers: a bitmap in 8 KiB leaves of 65,536
// blocks (512 MiB of relation each), made as blocks in them are seen, so a
// window's memory grows with the relations' sizes / 65,536, not with the
// pages it touched.
type pageSet struct {
	leaves   map[uint32]*[1024]uint64
	lastHigh uint32
	last     *[1024]uint64
	n        int
}

func (s *pageSet) add(blk uint32) {
	high := blk >> 16
	if s.last == nil || high != s.lastHigh {
		if s.leaves == nil {
			s.leaves = map[uint32]*[1024]uint64{}
		}
		l := s.leaves[high]
		if l == nil {
			l = new([1024]uint64)
			s.leaves[high] = l
		}
		s.last, s.lastHigh = l, high
	}
	word, bit := (blk&0xFFFF)>>6, uint64(1)<<(blk&63)
	if s.last[word]&bit == 0 {
		s.last[word] |= bit
		s.n++
	}
}
