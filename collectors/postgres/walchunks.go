package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/queries"
)

// Chunk sizes and counts bound what the decoder holds, whatever the window:
// chunkCount buffers of a chunk, one being decoded, the others read ahead.
// Over the connection a chunk also passes through the driver, which reads a
// row into a pooled power-of-two buffer and copies it into a new slice: a
// chunk just under 2 MiB keeps that buffer at 2 MiB (2 MiB exactly, plus the
// row's header, would take the 4 MiB class), and every row's copy is
// garbage: larger chunks made the heap's peak grow several times over
// (measured with make bench, docs/performance.md), so chunks there are just
// under 2 MiB (the server's sending, not the round trips, sets the pace,
// and more so once warm_reader_allocator has run).
const (
	localChunk  = 2 << 20
	remoteChunk = 2<<20 - walPageSize
	chunkCount  = 3
)

// walChunk is a page-aligned piece of a segment: lsn is the LSN of b[0].
type walChunk struct {
	lsn uint64
	b   []byte
	err error
}

// chunkReader reads the window's pages on a goroutine of its own, in order,
// so that reading (a file read, or a query and its transfer) overlaps
// decoding. The decoder takes chunks from ready and gives their buffers
// back to free; the reader stops at the window's end, at its first error
// (sent as a chunk: the decoder fails only if it needs that chunk) or when
// stopped.
type chunkReader struct {
	ready  chan walChunk
	free   chan []byte
	stop   chan struct{}
	done   chan struct{}
	skipTo atomic.Uint64 // chunks that end before this LSN are not read
}

// readChunks starts reading [start, end) of the WAL, the pages the decoder
// may need: from the page of start to one page past the page of end, each
// segment from the first such page on (a record may run into the next).
// With more than one fetcher (each on a connection of its own) the chunks
// are read by turns, chunk i by fetcher i mod len(fs), and handed on in
// order: over the connection the backend's CPU, copying and sending each
// chunk, sets the pace, and two at once read a window somewhat faster than
// one (measured with make bench, docs/performance.md: no more, as the
// backends' sending and the client's decoding share the machine's cores).
func readChunks(fs []*segmentFetcher, start, end uint64) *chunkReader {
	f := fs[0]
	size := uint64(localChunk)
	if f.local == "" {
		size = remoteChunk
	}
	k := len(fs)
	c := &chunkReader{ready: make(chan walChunk, chunkCount), free: make(chan []byte, chunkCount+2*k), stop: make(chan struct{}), done: make(chan struct{})}
	var made atomic.Int32
	// Buffers are made as needed and only as large as needed: a short
	// window's few pages take a few pages.
	buffer := func(n uint64) ([]byte, bool) {
		var b []byte
		select {
		case b = <-c.free:
		default:
			if made.Add(1) <= int32(chunkCount+k) {
				return make([]byte, n), true
			}
			select {
			case b = <-c.free:
			case <-c.stop:
				return nil, false
			}
		}
		if uint64(cap(b)) < n {
			b = make([]byte, n)
		}
		return b[:n], true
	}
	type task struct{ no, off, n uint64 }
	tasks := make([]chan task, k)
	out := make([]chan walChunk, k)
	for i := range fs {
		tasks[i], out[i] = make(chan task, 1), make(chan walChunk, 1)
	}
	last := (end+walPageSize-1)/walPageSize*walPageSize + walPageSize
	if f.local == "" && last-start > warmAbove {
		for _, fw := range fs {
			fw.warm = true
		}
	}
	var wg sync.WaitGroup
	wg.Add(1 + k)
	go func() { // the chunks in order, dealt by turns
		defer wg.Done()
		defer func() {
			for _, t := range tasks {
				close(t)
			}
		}()
		i := 0
		for no := start / f.segSize; no*f.segSize < last; no++ {
			segStart := no * f.segSize
			lo := max(segStart, start-start%walPageSize) - segStart
			hi := min(segStart+f.segSize, last) - segStart
			for off := lo; off < hi; off += size {
				n := min(size, hi-off)
				if segStart+off+n <= c.skipTo.Load() {
					continue // after a WAL switch: the rest of the segment is unused
				}
				select {
				case tasks[i%k] <- task{no, off, n}:
				case <-c.stop:
					return
				}
				i++
			}
		}
	}()
	for w, fw := range fs {
		go func() {
			defer wg.Done()
			defer close(out[w])
			defer fw.close()
			for t := range tasks[w] {
				b, ok := buffer(t.n)
				if !ok {
					return
				}
				got, err := fw.readAt(t.no, t.off, b)
				if err == nil && uint64(got) != t.n {
					err = fmt.Errorf("WAL segment %s: read %d bytes of %d at offset %d (%w)", fw.name(t.no), got, t.n, t.off, errWALGone)
				}
				select {
				case out[w] <- walChunk{lsn: t.no*fw.segSize + t.off, b: b, err: err}:
				case <-c.stop:
					return
				}
				if err != nil {
					return
				}
			}
		}()
	}
	go func() { // hands the chunks on in the order dealt
		defer close(c.done)
		defer wg.Wait()
		defer close(c.ready)
		for i := 0; ; i++ {
			var ch walChunk
			var ok bool
			select {
			case ch, ok = <-out[i%k]:
			case <-c.stop:
				return
			}
			if !ok {
				return
			}
			select {
			case c.ready <- ch:
			case <-c.stop:
				return
			}
			if ch.err != nil {
				return
			}
		}
	}()
	return c
}

// next is the next chunk read; false at the window's end.
func (c *chunkReader) next() (walChunk, bool) {
	ch, ok := <-c.ready
	return ch, ok
}

// release gives a decoded chunk's buffer back for the reader to fill again.
func (c *chunkReader) release(b []byte) {
	select {
	case c.free <- b:
	default: // cannot happen: no more buffers than slots
	}
}

// close stops the reader and waits for it: a query it has under way on the
// connection ends first (a cancelled context would break the connection's
// transaction), so the caller may use the connection again afterwards.
func (c *chunkReader) close() {
	close(c.stop)
	<-c.done
}

// segmentFetcher reads WAL segment files: from the local data directory when
// writeamp runs beside the server and may read it, else with
// pg_read_binary_file over the connection.
type segmentFetcher struct {
	ctx     context.Context
	qr      dialects.Querier
	s       dialects.Server
	segSize uint64
	tli     string // the timeline part of the segment file names
	local   string // pg_wal directory, "" to read over the connection
	file    *os.File
	fileNo  uint64
	// conn, when set, is the connection the chunks are read on with
	// pg.ReadBytesInto (the value copied once, where pgconn received it);
	// without one, or on another driver, through qr and database/sql.
	conn *sql.Conn
	// warm asks for warm_reader_allocator before the first remote read:
	// set for the readers of a window longer than warmAbove.
	warm bool
}

// warmAbove is the window, in bytes, past which a remote reader first warms
// its backend's allocator: a reader's first read faults its buffers in
// either way, so with two readers the warm-up pays from the third chunk of
// the window on; a short window would pay the round trip for nothing.
const warmAbove = 4 * remoteChunk

// warmBytes is what warm_reader_allocator asks for: 8 MiB, above the
// three chunk-sized blocks a read frees (see the query's comment).
const warmBytes = 8 << 20

func (f *segmentFetcher) name(segno uint64) string {
	per := uint64(0x100000000) / f.segSize
	return fmt.Sprintf("%s%08X%08X", f.tli, segno/per, segno%per)
}

// readAt reads len(dst) bytes of a segment from offset off on; fewer when
// the segment is shorter.
func (f *segmentFetcher) readAt(segno, off uint64, dst []byte) (int, error) {
	name := f.name(segno)
	if f.local != "" {
		if f.file == nil || f.fileNo != segno {
			f.close()
			fh, err := os.Open(filepath.Join(f.local, name))
			if errors.Is(err, fs.ErrNotExist) {
				return 0, fmt.Errorf("WAL segment %s: %w (%w)", name, err, errWALGone)
			}
			if err != nil {
				// Out of file descriptors or a permission: not a lost window.
				return 0, fmt.Errorf("WAL segment %s: %w", name, err)
			}
			f.file, f.fileNo = fh, segno
		}
		n, err := f.file.ReadAt(dst, int64(off))
		if err == io.EOF {
			err = nil
		}
		return n, err
	}
	n, err := f.readRemote("pg_wal/"+name, off, dst)
	if err != nil {
		if strings.Contains(err.Error(), "could not open file") {
			return 0, fmt.Errorf("WAL segment %s: %w (%w)", name, err, errWALGone)
		}
		return 0, err
	}
	return n, nil
}

// readRemote reads len(dst) bytes of a server file from off with
// pg_read_binary_file.
func (f *segmentFetcher) readRemote(file string, off uint64, dst []byte) (int, error) {
	if f.warm {
		f.warm = false
		q := f.qr
		if f.conn != nil {
			q = f.conn
		}
		var n int64
		if err := queries.QueryRow(f.ctx, q, pg.Name, "warm_reader_allocator", f.s.VersionNum, warmBytes).Scan(&n); err != nil {
			return 0, fmt.Errorf("preparing the connection to read WAL segments: %w", err)
		}
	}
	if f.conn != nil {
		text, err := queries.Get(pg.Name, "read_wal_segment", f.s.VersionNum)
		if err != nil {
			return 0, err
		}
		n, err := pg.ReadBytesInto(f.ctx, f.conn, text, []string{file, strconv.FormatUint(off, 10), strconv.Itoa(len(dst))}, dst)
		if !errors.Is(err, pg.ErrNotPgx) {
			return n, err
		}
		f.conn = nil // another driver: database/sql from now on
	}
	into := &copyInto{dst: dst}
	if err := queries.QueryRow(f.ctx, f.qr, pg.Name, "read_wal_segment", f.s.VersionNum, file, int64(off), int64(len(dst))).Scan(into); err != nil {
		return 0, err
	}
	return into.n, nil
}

func (f *segmentFetcher) close() {
	if f.file != nil {
		f.file.Close()
		f.file = nil
	}
}

// copyInto scans a bytea straight into a chunk buffer: scanning into a
// []byte would have database/sql clone the driver's copy once more.
type copyInto struct {
	dst []byte
	n   int
}

func (c *copyInto) Scan(src any) error {
	b, ok := src.([]byte)
	if !ok {
		return fmt.Errorf("pg_read_binary_file returned %T, not bytes", src)
	}
	if len(b) > len(c.dst) {
		return fmt.Errorf("pg_read_binary_file returned %d bytes, %d asked", len(b), len(c.dst))
	}
	c.n = copy(c.dst, b)
	return nil
}
