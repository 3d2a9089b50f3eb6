package postgres

import (
	"context"
	"encoding/binary"
	"fmt"
	"github.com/writeamp/writeamp/queries"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
)

// parseLSN reads "X/Y".
func parseLSN(s string) (uint64, error) {
	hi, lo, ok := strings.Cut(s, "/")
	h, err1 := strconv.ParseUint(hi, 16, 32)
	l, err2 := strconv.ParseUint(lo, 16, 32)
	if !ok || err1 != nil || err2 != nil {
		return 0, fmt.Errorf("not a WAL position: %q", s)
	}
	return h<<32 | l, nil
}

// segmentFetcher reads a byte range of a WAL segment file: from the local
// data directory when writeamp runs beside the server and may read it, else
// with pg_read_binary_file over the connection.
type segmentFetcher struct {
	ctx     context.Context
	qr      dialects.Querier
	s       dialects.Server
	segSize uint64
	tli     string // the timeline part of the segment file names
	local   string // pg_wal directory, "" to read over the connection
}

func (f *segmentFetcher) name(segno uint64) string {
	per := uint64(0x100000000) / f.segSize
	return fmt.Sprintf("%s%08X%08X", f.tli, segno/per, segno%per)
}

// remoteChunk bounds one pg_read_binary_file: the driver holds a value
// twice (its read buffer and the copy it returns), so a whole 16 MiB segment
// per query (or a 1 GiB one) would set the decoder's memory, not the window.
const remoteChunk = 4 << 20

// fetch reads [lo, hi) of a segment into buf (reused from the previous
// segment, so a window of any length holds one segment's bytes).
func (f *segmentFetcher) fetch(segno, lo, hi uint64, buf []byte) ([]byte, error) {
	name := f.name(segno)
	if uint64(cap(buf)) < hi-lo {
		buf = make([]byte, hi-lo, max(hi-lo, f.segSize)) // room for a whole segment after a partial first one
	}
	buf = buf[:hi-lo]
	if f.local != "" {
		fh, err := os.Open(filepath.Join(f.local, name))
		if err != nil {
			return nil, fmt.Errorf("WAL segment %s: %w (%w)", name, err, errWALGone)
		}
		defer fh.Close()
		n, err := fh.ReadAt(buf, int64(lo))
		if err != nil && err != io.EOF {
			return nil, err
		}
		return buf[:n], nil
	}
	n := uint64(0)
	for off := lo; off < hi; off += remoteChunk {
		var b []byte
		err := queries.QueryRow(f.ctx, f.qr, pg.Name, "read_wal_segment", f.s.VersionNum, "pg_wal/"+name, int64(off), int64(min(remoteChunk, hi-off))).Scan(&b)
		if err != nil {
			if strings.Contains(err.Error(), "could not open file") {
				return nil, fmt.Errorf("WAL segment %s: %w (%w)", name, err, errWALGone)
			}
			return nil, err
		}
		n += uint64(copy(buf[off-lo:], b))
		if uint64(len(b)) < min(remoteChunk, hi-off) {
			break // a short segment: seg reports it
		}
	}
	return buf[:n], nil
}

// newFetcher finds the segment names' timeline and whether the segments can
// be read from the local file system: the data directory must be readable
// here and its segments must carry this server's system identifier.
func newFetcher(ctx context.Context, qr dialects.Querier, s dialects.Server, start uint64) (*segmentFetcher, error) {
	seg, err := strconv.ParseUint(s.Prop(pg.PropWALSegmentSize), 10, 64)
	if err != nil || seg == 0 || seg%walPageSize != 0 {
		return nil, fmt.Errorf("unknown WAL segment size %q", s.Prop(pg.PropWALSegmentSize))
	}
	f := &segmentFetcher{ctx: ctx, qr: qr, s: s, segSize: seg}
	var first string
	if s.Has(pg.CapStandby) {
		if err := queries.QueryRow(ctx, qr, pg.Name, "standby_timeline", s.VersionNum).Scan(&f.tli); err != nil {
			return nil, err
		}
		first = f.name(start / seg)
	} else if err := queries.QueryRow(ctx, qr, pg.Name, "wal_file_name", s.VersionNum, fmt.Sprintf("%X/%X", start>>32, uint32(start))).Scan(&first); err != nil {
		return nil, err
	}
	if len(first) != 24 {
		return nil, fmt.Errorf("unexpected WAL file name %q", first)
	}
	f.tli = first[:8]
	if dir := s.Prop(pg.PropDataDirectory); dir != "" {
		sysid, _, _ := strings.Cut(s.Identity, "/")
		local := filepath.Join(dir, "pg_wal")
		// The long header of a segment's first page names the cluster (the
		// header only: reading the whole segment doubled the decoder's memory).
		if b, err := readHead(filepath.Join(local, first), longPageHeader); err == nil && len(b) >= longPageHeader {
			if strconv.FormatUint(binary.LittleEndian.Uint64(b[24:]), 10) == sysid {
				f.local = local
			}
		}
	}
	return f, nil
}

// decodeWindow reads the window's records with writeamp's decoder and
// aggregates them as the pg_walinspect query does: per relation of the first
// block and class of transaction, plus the distinct pages of each scoped
// relation any block reference changed.
func decodeWindow(ctx context.Context, qr dialects.Querier, s dialects.Server, w walWindow) ([]walRow, map[int64]float64, string, error) {
	start, err := parseLSN(w.start)
	if err != nil {
		return nil, nil, "", err
	}
	end, err := parseLSN(w.end)
	if err != nil {
		return nil, nil, "", err
	}
	f, err := newFetcher(ctx, qr, s, start)
	if err != nil {
		return nil, nil, "", err
	}
	stream := &walStream{major: s.VersionNum / 10000, segSize: f.segSize, start: start, end: end, fetch: f.fetch}
	type key struct {
		db, rel int64
		xact    string
	}
	// Rows are summed per relation and transaction class. A transaction's
	// class (it wrote a scoped relation, another one, or none) is known
	// once its commit or abort record is read, the last of its records: its
	// rows wait in open until then and are folded in, so what is held is
	// the transactions open at a time, not every transaction of the window.
	rows := map[key]*walRow{}
	type xact struct {
		scope bool
		rows  []walRow // by relation of the first block; a handful
	}
	open := map[uint32]*xact{}
	add := func(k key, a *walRow) {
		t := rows[k]
		if t == nil {
			t = &walRow{db: k.db, node: k.rel, xact: k.xact}
			rows[k] = t
		}
		t.add(a)
	}
	fold := func(xid uint32) {
		x := open[xid]
		if x == nil {
			return
		}
		delete(open, xid)
		class := "none"
		for _, a := range x.rows {
			if a.node != 0 {
				class = "other"
			}
		}
		if x.scope {
			class = "scope"
		}
		for i := range x.rows {
			add(key{x.rows[i].db, x.rows[i].node, class}, &x.rows[i])
			if class == "scope" && x.rows[i].node == 0 {
				w.attribute(xid, relKey{}, &x.rows[i]) // its commit record: in scope with it
			}
		}
	}
	pages := map[int64]map[uint32]struct{}{}
	var one walRow
	err = decodeWAL(stream, start, end, func(r *walRecord) error {
		var db, rel int64
		first := -1
		for i, b := range r.blocks {
			if first < 0 || b.id < r.blocks[first].id {
				first = i
			}
			if int64(b.db) == w.dboid && b.fork == 0 {
				if _, ok := w.rels[int64(b.rel)]; ok {
					set := pages[int64(b.rel)]
					if set == nil {
						set = map[uint32]struct{}{}
						pages[int64(b.rel)] = set
					}
					set[b.blk] = struct{}{}
				}
			}
		}
		if first >= 0 {
			db, rel = int64(r.blocks[first].db), int64(r.blocks[first].rel)
		}
		_, scoped := w.rels[rel]
		scoped = scoped && db == w.dboid
		one = walRow{db: db, node: rel, recs: 1, bytes: float64(r.totLen)}
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
			add(key{db, rel, "scope"}, &one)
			w.attribute(r.xid, w.rels[rel], &one)
			if r.xid != 0 {
				x := open[r.xid]
				if x == nil {
					x = &xact{}
					open[r.xid] = x
				}
				x.scope = true
			}
		case r.xid == 0:
			add(key{db, rel, "none"}, &one)
		default:
			x := open[r.xid]
			if x == nil {
				x = &xact{}
				open[r.xid] = x
			}
			i := slices.IndexFunc(x.rows, func(a walRow) bool { return a.db == db && a.node == rel })
			if i < 0 {
				x.rows = append(x.rows, walRow{db: db, node: rel})
				i = len(x.rows) - 1
			}
			x.rows[i].add(&one)
		}
		if ended, subs := xactEnd(r); ended {
			fold(r.xid)
			for _, sub := range subs {
				fold(sub)
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, "", err
	}
	for xid := range open { // still open at the window's end, or prepared
		fold(xid)
	}
	out := make([]walRow, 0, len(rows))
	for _, a := range rows {
		out = append(out, *a)
	}
	counts := make(map[int64]float64, len(pages))
	for rel, set := range pages {
		counts[rel] = float64(len(set))
	}
	where := "read with pg_read_binary_file"
	if f.local != "" {
		where = "read from " + f.local
	}
	return out, counts, "writeamp's WAL decoder (pg_wal segments " + where + ")", nil
}

// add sums another row's figures into a.
func (a *walRow) add(b *walRow) {
	a.recs += b.recs
	a.bytes += b.bytes
	a.fpiBytes += b.fpiBytes
	a.fpis += b.fpis
	a.leafIns += b.leafIns
	a.leafSplit += b.leafSplit
	a.newpage += b.newpage
}

const (
	rmXact            = 1    // RM_XACT_ID
	xactOpMask        = 0x70 // XLOG_XACT_OPMASK
	xactCommit        = 0x00
	xactAbort         = 0x20
	xactHasInfo       = 0x80 // XLOG_XACT_HAS_INFO
	xinfoHasDBInfo    = 1 << 0
	xinfoHasSubxacts  = 1 << 1
	xactTimeAndXinfo  = 8 + 4 // xact_time, then xinfo when xactHasInfo
	xactDBInfoLen     = 8     // xl_xact_dbinfo: dbId, tsId
	xactSubxactsCount = 4     // xl_xact_subxacts.nsubxacts
)

// xactEnd says whether r ends its transaction (a commit or an abort, not a
// prepare: COMMIT PREPARED is written by another session) and which
// subtransactions it ends with it (xl_xact_commit and xl_xact_abort in
// PostgreSQL's src/include/access/xact.h, the same layout in 13 to 18).
func xactEnd(r *walRecord) (bool, []uint32) {
	op := r.info & xactOpMask
	if r.rmid != rmXact || r.xid == 0 || op != xactCommit && op != xactAbort {
		return false, nil
	}
	d := r.mainData
	if r.info&xactHasInfo == 0 || len(d) < xactTimeAndXinfo {
		return true, nil
	}
	xinfo := binary.LittleEndian.Uint32(d[8:])
	p := xactTimeAndXinfo
	if xinfo&xinfoHasDBInfo != 0 {
		p += xactDBInfoLen
	}
	if xinfo&xinfoHasSubxacts == 0 || len(d) < p+xactSubxactsCount {
		return true, nil
	}
	n := int(binary.LittleEndian.Uint32(d[p:]))
	p += xactSubxactsCount
	if n < 0 || len(d) < p+4*n {
		return true, nil
	}
	subs := make([]uint32, n)
	for i := range subs {
		subs[i] = binary.LittleEndian.Uint32(d[p+4*i:])
	}
	return true, subs
}

// readHead reads the first n bytes of a file.
func readHead(path string, n int) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	b := make([]byte, n)
	n, err = io.ReadFull(fh, b)
	return b[:n], err
}
