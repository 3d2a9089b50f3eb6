package postgres

import (
	"context"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
)

// A remote reader warms its backend's allocator once, before its first
// read, when the window is longer than warmAbove, and not for a short one
// (a few pages: the warm-up would be a round trip for nothing); a local
// reader never does. The reads go through database/sql here (sqlmock is not
// pgx), the path a non-pgx driver takes.
func TestRemoteReaderWarmsItsBackendOnceForALongWindow(t *testing.T) {
	const seg = 16 << 20
	s := dialects.Server{Dialect: pg.Name, VersionNum: 150000}
	read := mocksql.SQL(t, pg.Name, "read_wal_segment", s.VersionNum)
	warm := mocksql.SQL(t, pg.Name, "warm_reader_allocator", s.VersionNum)
	for _, c := range []struct {
		name       string
		start, end uint64
		warms      bool
	}{
		{"five chunks", seg, seg + 5*remoteChunk - 3*walPageSize, true},
		{"three pages", seg + walPageSize, seg + 2*walPageSize + 100, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			db, mock := mocksql.New(t)
			if c.warms {
				mock.ExpectQuery(warm).WithArgs(int64(warmBytes)).WillReturnRows(sqlmock.NewRows([]string{"octet_length"}).AddRow(int64(4)))
			}
			first := c.start - c.start%walPageSize
			last := (c.end+walPageSize-1)/walPageSize*walPageSize + walPageSize
			for off := first; off < last; off += remoteChunk {
				n := min(uint64(remoteChunk), last-off)
				mock.ExpectQuery(read).WithArgs("pg_wal/000000010000000000000001", int64(off-seg), int64(n)).
					WillReturnRows(sqlmock.NewRows([]string{"pg_read_binary_file"}).AddRow(make([]byte, n)))
			}
			f := &segmentFetcher{ctx: context.Background(), qr: db, s: s, segSize: seg, tli: "00000001"}
			src := readChunks([]*segmentFetcher{f}, c.start, c.end)
			defer src.close()
			var got uint64
			for {
				ch, ok := src.next()
				if !ok {
					break
				}
				if ch.err != nil {
					t.Fatal(ch.err)
				}
				got += uint64(len(ch.b))
				src.release(ch.b)
			}
			if got != last-first {
				t.Errorf("read %d bytes, want %d", got, last-first)
			}
		})
	}
}
