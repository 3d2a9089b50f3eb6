package postgres

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/queries"
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
	fs := []*segmentFetcher{f}
	if f.local == "" {
		// Each reader on a connection of its own, read through pgconn: the
		// window's transaction (qr, in RunInterval) goes through
		// database/sql, which copies every chunk twice more.
		switch c := qr.(type) {
		case *sql.Conn:
			f.conn = c
		case *sql.DB:
			if conn := reader(ctx, c); conn != nil {
				defer conn.Close()
				f.conn = conn
			}
		default:
			if conn := secondReader(ctx); conn != nil {
				defer conn.Close()
				f.conn = conn
			}
		}
		if conn := secondReader(ctx); conn != nil {
			defer conn.Close()
			f2 := *f
			f2.qr, f2.conn = conn, conn
			fs = append(fs, &f2)
		}
	}
	src := readChunks(fs, start, end)
	defer src.close()
	stream := &walStream{major: s.VersionNum / 10000, segSize: f.segSize, src: src}
	agg := newWindowAgg(&w)
	err = decodeWAL(stream, start, end, func(r *walRecord) error {
		agg.record(r)
		return nil
	})
	if err != nil {
		return nil, nil, "", err
	}
	out, counts := agg.result()
	where := "read with pg_read_binary_file"
	if len(fs) > 1 {
		where += fmt.Sprintf(" on %d connections", len(fs))
	}
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

// secondReader is another connection of the measurement's pool for reading
// segments beside the window's own, or nil: none is given, the pool is at its
// limit (the wait is short, a busy pool only slows the read) or the server
// refuses one more.
func secondReader(ctx context.Context) *sql.Conn {
	return reader(ctx, collectors.Pool(ctx))
}

// reader is a connection of db's for a reader of the window's segments,
// nil when none comes within 2 s (a pool at its limit).
func reader(ctx context.Context, db *sql.DB) *sql.Conn {
	if db == nil {
		return nil
	}
	wait, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	conn, err := db.Conn(wait)
	if err != nil {
		return nil
	}
	return conn
}
