package postgres

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
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

func (f *segmentFetcher) fetch(segno, lo, hi uint64) ([]byte, error) {
	name := f.name(segno)
	if f.local != "" {
		fh, err := os.Open(filepath.Join(f.local, name))
		if err != nil {
			return nil, fmt.Errorf("WAL segment %s: %w (%w)", name, err, errWALGone)
		}
		defer fh.Close()
		b := make([]byte, hi-lo)
		if _, err := fh.ReadAt(b, int64(lo)); err != nil && err != io.EOF {
			return nil, err
		}
		return b, nil
	}
	var b []byte
	err := f.qr.QueryRowContext(f.ctx, q("read_wal_segment", f.s), "pg_wal/"+name, int64(lo), int64(hi-lo)).Scan(&b)
	if err != nil {
		if strings.Contains(err.Error(), "could not open file") {
			return nil, fmt.Errorf("WAL segment %s: %w (%w)", name, err, errWALGone)
		}
		return nil, err
	}
	return b, nil
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
	if err := qr.QueryRowContext(ctx, q("wal_file_name", s), fmt.Sprintf("%X/%X", start>>32, uint32(start))).Scan(&first); err != nil {
		return nil, err
	}
	if len(first) != 24 {
		return nil, fmt.Errorf("unexpected WAL file name %q", first)
	}
	f.tli = first[:8]
	if dir := s.Prop(pg.PropDataDirectory); dir != "" {
		sysid, _, _ := strings.Cut(s.Identity, "/")
		local := filepath.Join(dir, "pg_wal")
		if b, err := os.ReadFile(filepath.Join(local, first)); err == nil && len(b) >= longPageHeader {
			// The long header of a segment's first page names the cluster.
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
		xid     uint32
	}
	mine := map[key]*walRow{}  // scoped relations: the transaction class does not matter
	other := map[key]*walRow{} // by transaction, classed at the end
	scopeXids, otherXids := map[uint32]bool{}, map[uint32]bool{}
	pages := map[int64]map[uint32]struct{}{}
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
		k := key{db: db, rel: rel}
		m := mine
		switch {
		case scoped:
			if r.xid != 0 {
				scopeXids[r.xid] = true
			}
		default:
			if rel != 0 && r.xid != 0 {
				otherXids[r.xid] = true
			}
			k.xid, m = r.xid, other
		}
		a := m[k]
		if a == nil {
			a = &walRow{db: db, node: rel, xact: "scope"}
			m[k] = a
		}
		a.recs++
		a.bytes += float64(r.totLen)
		if n := r.fpiLen(); n > 0 {
			a.fpiBytes += float64(n)
			a.fpis++
		}
		if r.leafInsert() {
			a.leafIns++
		}
		if r.leafSplit() {
			a.leafSplit++
		}
		if r.newpageUpdate() {
			a.newpage++
		}
		return nil
	})
	if err != nil {
		return nil, nil, "", err
	}
	rows := make([]walRow, 0, len(mine)+len(other))
	for _, a := range mine {
		rows = append(rows, *a)
	}
	for k, a := range other {
		switch {
		case k.xid != 0 && scopeXids[k.xid]:
			a.xact = "scope"
		case k.xid != 0 && otherXids[k.xid]:
			a.xact = "other"
		default:
			a.xact = "none"
		}
		rows = append(rows, *a)
	}
	counts := make(map[int64]float64, len(pages))
	for rel, set := range pages {
		counts[rel] = float64(len(set))
	}
	where := "read with pg_read_binary_file"
	if f.local != "" {
		where = "read from " + f.local
	}
	return rows, counts, "writeamp's WAL decoder (pg_wal segments " + where + ")", nil
}
