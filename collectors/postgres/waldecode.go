package postgres

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// A reader of PostgreSQL's write-ahead log, for what writeamp counts per
// relation: record and full-page-image bytes, B-tree leaf inserts and splits,
// heap updates that moved to another page, and the blocks each record
// touched. pg_walinspect gives the same figures but formats a description of
// every record as text, about ten times the cost of pg_waldump; decoding the
// segments' bytes here keeps a long window's log read cheap. The layout is
// PostgreSQL's src/include/access/xlogrecord.h and xlog_internal.h, the same
// from 13 to 18 except for the image-compression flags (15 changed them).
// The live version matrix holds every figure to pg_walinspect's.

const (
	walPageSize     = 8192 // XLOG_BLCKSZ, PostgreSQL's default and the npm/Debian builds'
	shortPageHeader = 24   // MAXALIGN(sizeof(XLogPageHeaderData))
	longPageHeader  = 40   // MAXALIGN(sizeof(XLogLongPageHeaderData))
	recordHeader    = 24   // SizeOfXLogRecord

	xlpFirstIsContRecord = 0x0001
	xlpLongHeader        = 0x0002

	blockIDDataShort  = 255
	blockIDDataLong   = 254
	blockIDOrigin     = 253
	blockIDTopLevelID = 252
	maxBlockID        = 32

	bkpBlockHasImage = 0x10
	bkpBlockSameRel  = 0x80
	bkpImageHasHole  = 0x01

	rmXLOG  = 0
	rmHeap  = 10
	rmBtree = 11

	xlogSwitch             = 0x40
	heapOpMask             = 0x70
	heapUpdate             = 0x20
	btreeInsertLeaf        = 0x00
	btreeSplitL            = 0x30
	btreeSplitR            = 0x40
	btreeInsertPost        = 0x50
	rmgrInfoMask    uint8  = 0xF0
	maxAlign        uint64 = 8
)

// imageCompressed says whether a block image's bimg_info marks it
// compressed: one flag before 15, one per method (pglz, lz4, zstd) from 15.
func imageCompressed(info uint8, major int) bool {
	if major < 15 {
		return info&0x02 != 0
	}
	return info&(0x04|0x08|0x10) != 0
}

// walBlock is one block a record references.
type walBlock struct {
	id       uint8
	fork     uint8
	db, rel  uint32
	blk      uint32
	imageLen uint16
}

// walRecord is what writeamp needs of one record.
type walRecord struct {
	lsn      uint64
	totLen   uint32
	xid      uint32
	rmid     uint8
	info     uint8
	blocks   []walBlock
	mainData []byte
}

// fpiLen is the bytes of full-page images the record carries.
func (r *walRecord) fpiLen() int {
	n := 0
	for _, b := range r.blocks {
		n += int(b.imageLen)
	}
	return n
}

// leafInsert and leafSplit: INSERT_LEAF, INSERT_POST, and leaf-level splits,
// which carry the inserted tuple (xl_btree_split starts with its level).
func (r *walRecord) leafSplit() bool {
	op := r.info & rmgrInfoMask
	return r.rmid == rmBtree && (op == btreeSplitL || op == btreeSplitR) && len(r.mainData) >= 4 && binary.LittleEndian.Uint32(r.mainData) == 0
}

func (r *walRecord) leafInsert() bool {
	op := r.info & rmgrInfoMask
	return r.rmid == rmBtree && (op == btreeInsertLeaf || op == btreeInsertPost) || r.leafSplit()
}

// newpageUpdate: a heap UPDATE (not HOT) whose new version went to another
// page, so the record references a second block.
func (r *walRecord) newpageUpdate() bool {
	if r.rmid != rmHeap || r.info&heapOpMask != heapUpdate {
		return false
	}
	for _, b := range r.blocks {
		if b.id == 1 {
			return true
		}
	}
	return false
}

// errWALGone is a segment that no longer holds the window (recycled).
var errWALGone = errors.New("has already been removed")

// walStream yields the WAL's bytes from an LSN on, skipping page headers.
// It fetches each segment once, only the pages of [start, end) in it.
type walStream struct {
	major      int
	segSize    uint64
	start, end uint64
	fetch      func(segno, lo, hi uint64, buf []byte) ([]byte, error)
	cur        []byte
	curNo      uint64
	base       uint64 // offset in the segment of cur[0]
	pos        uint64 // LSN of the next byte
}

// seg returns the bytes of lsn's segment that were fetched, and their offset.
func (w *walStream) seg(lsn uint64) ([]byte, uint64, error) {
	no := lsn / w.segSize
	if w.cur == nil || w.curNo != no {
		segStart := no * w.segSize
		lo := max(segStart, w.start-w.start%walPageSize) - segStart
		hi := min(segStart+w.segSize, (w.end+walPageSize-1)/walPageSize*walPageSize+walPageSize) - segStart
		// cur is reused: records are copied out of it before the next
		// segment is read (decodeWAL's buffer), so one segment is held.
		b, err := w.fetch(no, lo, hi, w.cur)
		if err != nil {
			return nil, 0, err
		}
		if uint64(len(b)) != hi-lo {
			return nil, 0, fmt.Errorf("WAL segment %d: read %d bytes of %d (%w)", no, len(b), hi-lo, errWALGone)
		}
		w.cur, w.curNo, w.base = b, no, lo
	}
	off := lsn % w.segSize
	if off < w.base || off >= w.base+uint64(len(w.cur)) {
		return nil, 0, fmt.Errorf("WAL position %X/%X outside the window's pages", lsn>>32, uint32(lsn))
	}
	return w.cur, w.base, nil
}

// pageHeader checks the header of the page lsn is in and returns how long it
// is; a page whose address is not its own belongs to an older, recycled pass
// of the segment.
func (w *walStream) pageHeader(lsn uint64) (int, uint32, uint16, error) {
	page := lsn - lsn%walPageSize
	s, base, err := w.seg(page)
	if err != nil {
		return 0, 0, 0, err
	}
	off := page%w.segSize - base
	h := s[off : off+shortPageHeader]
	info := binary.LittleEndian.Uint16(h[2:])
	if addr := binary.LittleEndian.Uint64(h[8:]); addr != page {
		return 0, 0, 0, fmt.Errorf("WAL page %X/%X holds page %X/%X: the segment was recycled (%w)", page>>32, uint32(page), addr>>32, uint32(addr), errWALGone)
	}
	size := shortPageHeader
	if info&xlpLongHeader != 0 {
		size = longPageHeader
	}
	return size, binary.LittleEndian.Uint32(h[16:]), info, nil
}

// read copies n bytes of record data from the current position on, skipping
// the page headers between pages.
func (w *walStream) read(dst []byte) error {
	for len(dst) > 0 {
		if w.pos%walPageSize == 0 {
			hdr, _, _, err := w.pageHeader(w.pos)
			if err != nil {
				return err
			}
			w.pos += uint64(hdr)
		}
		s, base, err := w.seg(w.pos)
		if err != nil {
			return err
		}
		off := w.pos%w.segSize - base
		room := walPageSize - w.pos%walPageSize
		n := copy(dst, s[off:off+min(room, uint64(len(dst)))])
		dst = dst[n:]
		w.pos += uint64(n)
	}
	return nil
}

// decodeWAL calls fn for every record that starts in [start, end).
func decodeWAL(w *walStream, start, end uint64, fn func(*walRecord) error) error {
	w.pos = start
	if off := w.pos % walPageSize; off == 0 {
		hdr, _, _, err := w.pageHeader(w.pos)
		if err != nil {
			return err
		}
		w.pos += uint64(hdr)
	}
	var hdr [recordHeader]byte
	var buf []byte
	rec := &walRecord{}
	for w.pos < end {
		// Records start MAXALIGNed; one that would start in a page header
		// starts after it.
		w.pos = (w.pos + maxAlign - 1) &^ (maxAlign - 1)
		if w.pos >= end {
			break
		}
		if off := w.pos % walPageSize; off == 0 {
			h, _, _, err := w.pageHeader(w.pos)
			if err != nil {
				return err
			}
			w.pos += uint64(h)
		}
		lsn := w.pos
		if err := w.read(hdr[:]); err != nil {
			return err
		}
		tot := binary.LittleEndian.Uint32(hdr[0:])
		if tot < recordHeader {
			return fmt.Errorf("invalid WAL record length %d at %X/%X", tot, lsn>>32, uint32(lsn))
		}
		if cap(buf) < int(tot) {
			buf = make([]byte, tot)
		}
		buf = buf[:tot]
		copy(buf, hdr[:])
		if err := w.read(buf[recordHeader:]); err != nil {
			return err
		}
		if err := parseRecord(buf, lsn, w.major, rec); err != nil {
			return err
		}
		if err := fn(rec); err != nil {
			return err
		}
		if rec.rmid == rmXLOG && rec.info&rmgrInfoMask == xlogSwitch {
			// The rest of the segment is unused: the next record starts
			// after the next segment's long header.
			w.pos = (w.pos/w.segSize + 1) * w.segSize
		}
	}
	return nil
}

// parseRecord decodes a whole record's header and block references
// (DecodeXLogRecord in xlogreader.c).
func parseRecord(b []byte, lsn uint64, major int, r *walRecord) error {
	r.lsn, r.totLen = lsn, binary.LittleEndian.Uint32(b[0:])
	r.xid = binary.LittleEndian.Uint32(b[4:])
	r.info, r.rmid = b[16], b[17]
	r.blocks, r.mainData = r.blocks[:0], nil
	bad := func() error { return fmt.Errorf("malformed WAL record at %X/%X", lsn>>32, uint32(lsn)) }
	p, remaining, datatotal := recordHeader, int(r.totLen)-recordHeader, 0
	var db, rel uint32
	mainLen := 0
	need := func(n int) bool { return p+n <= len(b) }
headers:
	for remaining > datatotal {
		if !need(1) {
			return bad()
		}
		id := b[p]
		p++
		remaining--
		switch {
		case id == blockIDDataShort:
			if !need(1) {
				return bad()
			}
			mainLen = int(b[p])
			p++
			remaining--
			datatotal += mainLen
			break headers // main data is always last
		case id == blockIDDataLong:
			if !need(4) {
				return bad()
			}
			mainLen = int(binary.LittleEndian.Uint32(b[p:]))
			p += 4
			remaining -= 4
			datatotal += mainLen
			break headers
		case id == blockIDOrigin:
			p += 2
			remaining -= 2
		case id == blockIDTopLevelID:
			p += 4
			remaining -= 4
		case id <= maxBlockID:
			if !need(3) {
				return bad()
			}
			blk := walBlock{id: id, fork: b[p] & 0x0F}
			flags := b[p]
			dataLen := int(binary.LittleEndian.Uint16(b[p+1:]))
			p += 3
			remaining -= 3
			datatotal += dataLen
			if flags&bkpBlockHasImage != 0 {
				if !need(5) {
					return bad()
				}
				blk.imageLen = binary.LittleEndian.Uint16(b[p:])
				info := b[p+4]
				p += 5
				remaining -= 5
				if info&bkpImageHasHole != 0 && imageCompressed(info, major) {
					p += 2
					remaining -= 2
				}
				datatotal += int(blk.imageLen)
			}
			if flags&bkpBlockSameRel == 0 {
				if !need(12) {
					return bad()
				}
				db, rel = binary.LittleEndian.Uint32(b[p+4:]), binary.LittleEndian.Uint32(b[p+8:])
				p += 12
				remaining -= 12
			}
			if !need(4) {
				return bad()
			}
			blk.db, blk.rel, blk.blk = db, rel, binary.LittleEndian.Uint32(b[p:])
			p += 4
			remaining -= 4
			r.blocks = append(r.blocks, blk)
		default:
			return fmt.Errorf("invalid block id %d in WAL record at %X/%X", id, lsn>>32, uint32(lsn))
		}
	}
	if remaining != datatotal || p+datatotal != len(b) {
		return bad()
	}
	if mainLen > 0 {
		r.mainData = b[len(b)-mainLen:]
	}
	return nil
}
