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

// leafSplit: a leaf-level split, which carries the inserted tuple
// (xl_btree_split starts with its level).
func (r *walRecord) leafSplit() bool {
	op := r.info & rmgrInfoMask
	return r.rmid == rmBtree && (op == btreeSplitL || op == btreeSplitR) && len(r.mainData) >= 4 && binary.LittleEndian.Uint32(r.mainData) == 0
}

// leafInsert: INSERT_LEAF, INSERT_POST, and leaf-level splits (leafSplit).
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

// walStream yields the WAL's bytes from an LSN on, skipping page headers,
// from the chunks a chunkReader reads ahead. Only the current chunk is held:
// the decoder moves forward only, and a record crossing a chunk boundary is
// copied out before the next chunk is taken.
type walStream struct {
	major   int
	segSize uint64
	src     *chunkReader
	cur     []byte
	curLSN  uint64 // LSN of cur[0]
	pos     uint64 // LSN of the next byte
}

// at returns the bytes of the current chunk from lsn on, taking chunks until
// one holds lsn. Chunks are page-aligned, so the rest of lsn's page is in it.
func (w *walStream) at(lsn uint64) ([]byte, error) {
	for w.cur == nil || lsn < w.curLSN || lsn-w.curLSN >= uint64(len(w.cur)) {
		if w.cur != nil {
			if lsn < w.curLSN {
				return nil, fmt.Errorf("WAL position %X/%X before the chunk read (%X/%X)", lsn>>32, uint32(lsn), w.curLSN>>32, uint32(w.curLSN))
			}
			w.src.release(w.cur)
			w.cur = nil
		}
		c, ok := w.src.next()
		if !ok {
			return nil, fmt.Errorf("WAL position %X/%X outside the window's pages", lsn>>32, uint32(lsn))
		}
		if c.err != nil {
			return nil, c.err
		}
		w.cur, w.curLSN = c.b, c.lsn
	}
	return w.cur[lsn-w.curLSN:], nil
}

// skipPageHeader checks the header of the page starting at w.pos and moves
// past it; a page whose address is not its own belongs to an older,
// recycled pass of the segment.
func (w *walStream) skipPageHeader() error {
	page := w.pos
	h, err := w.at(page)
	if err != nil {
		return err
	}
	if addr := binary.LittleEndian.Uint64(h[8:]); addr != page {
		return fmt.Errorf("WAL page %X/%X holds page %X/%X: the segment was recycled (%w)", page>>32, uint32(page), addr>>32, uint32(addr), errWALGone)
	}
	if binary.LittleEndian.Uint16(h[2:])&xlpLongHeader != 0 {
		w.pos += longPageHeader
	} else {
		w.pos += shortPageHeader
	}
	return nil
}

// read copies len(dst) bytes of record data from the current position on,
// skipping the page headers between pages.
func (w *walStream) read(dst []byte) error {
	for len(dst) > 0 {
		if w.pos%walPageSize == 0 {
			if err := w.skipPageHeader(); err != nil {
				return err
			}
		}
		s, err := w.at(w.pos)
		if err != nil {
			return err
		}
		room := walPageSize - w.pos%walPageSize
		n := copy(dst, s[:min(room, uint64(len(dst)))])
		dst = dst[n:]
		w.pos += uint64(n)
	}
	return nil
}

// skipTo moves to lsn, further on, and tells the reader that nothing before
// it is needed.
func (w *walStream) skipTo(lsn uint64) {
	w.pos = lsn
	w.src.skipTo.Store(lsn)
}

// decodeWAL calls fn for every record that starts in [start, end). The
// record and its main data are valid only during fn.
func decodeWAL(w *walStream, start, end uint64, fn func(*walRecord) error) error {
	w.pos = start
	if w.pos%walPageSize == 0 {
		if err := w.skipPageHeader(); err != nil {
			return err
		}
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
		if w.pos%walPageSize == 0 {
			if err := w.skipPageHeader(); err != nil {
				return err
			}
		}
		lsn := w.pos
		var b []byte
		// Most records lie within one page: they are decoded where they
		// are, without a copy.
		if room := walPageSize - lsn%walPageSize; room >= recordHeader {
			s, err := w.at(lsn)
			if err != nil {
				return err
			}
			if tot := uint64(binary.LittleEndian.Uint32(s)); tot >= recordHeader && tot <= room {
				b = s[:tot:tot]
				w.pos += tot
			}
		}
		if b == nil {
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
			b = buf
		}
		if err := parseRecord(b, lsn, w.major, rec); err != nil {
			return err
		}
		if err := fn(rec); err != nil {
			return err
		}
		if rec.rmid == rmXLOG && rec.info&rmgrInfoMask == xlogSwitch {
			// The rest of the segment is unused: the next record starts
			// after the next segment's long header.
			w.skipTo((w.pos/w.segSize + 1) * w.segSize)
		}
	}
	return nil
}

// parseRecord decodes a whole record's header and block references
// (DecodeXLogRecord in xlogreader.c). It runs once per record, so bounds
// are checked inline rather than through closures.
func parseRecord(b []byte, lsn uint64, major int, r *walRecord) error {
	r.lsn, r.totLen = lsn, binary.LittleEndian.Uint32(b[0:])
	r.xid = binary.LittleEndian.Uint32(b[4:])
	r.info, r.rmid = b[16], b[17]
	r.blocks, r.mainData = r.blocks[:0], nil
	p, remaining, datatotal := recordHeader, int(r.totLen)-recordHeader, 0
	var db, rel uint32
	mainLen := 0
headers:
	for remaining > datatotal {
		if p+1 > len(b) {
			return badRecord(lsn)
		}
		id := b[p]
		p++
		remaining--
		switch {
		case id == blockIDDataShort:
			if p+1 > len(b) {
				return badRecord(lsn)
			}
			mainLen = int(b[p])
			p++
			remaining--
			datatotal += mainLen
			break headers // main data is always last
		case id == blockIDDataLong:
			if p+4 > len(b) {
				return badRecord(lsn)
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
			if p+3 > len(b) {
				return badRecord(lsn)
			}
			blk := walBlock{id: id, fork: b[p] & 0x0F}
			flags := b[p]
			dataLen := int(binary.LittleEndian.Uint16(b[p+1:]))
			p += 3
			remaining -= 3
			datatotal += dataLen
			if flags&bkpBlockHasImage != 0 {
				if p+5 > len(b) {
					return badRecord(lsn)
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
				if p+12 > len(b) {
					return badRecord(lsn)
				}
				db, rel = binary.LittleEndian.Uint32(b[p+4:]), binary.LittleEndian.Uint32(b[p+8:])
				p += 12
				remaining -= 12
			}
			if p+4 > len(b) {
				return badRecord(lsn)
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
		return badRecord(lsn)
	}
	if mainLen > 0 {
		r.mainData = b[len(b)-mainLen:]
	}
	return nil
}

func badRecord(lsn uint64) error {
	return fmt.Errorf("malformed WAL record at %X/%X", lsn>>32, uint32(lsn))
}
