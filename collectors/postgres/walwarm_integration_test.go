package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/collectors"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
	"github.com/writeamp/writeamp/internal/testing/pgmatrix"
)

// A backend that reads chunks of a segment for the remote WAL reader faults
// its heap in again on every read unless warm_reader_allocator ran first
// (glibc's malloc gives the chunks' buffers back; the query's comment says
// why). Measured where it happens: the backend's minor page faults, from
// /proc (pgmatrix servers run on this machine), over 6 reads of a chunk
// after a first one, on a fresh connection each way.
func TestWarmedReaderKeepsItsBackendsHeap(t *testing.T) {
	t.Parallel()
	srv := pgmatrix.Start(t, 15)
	ctx := context.Background()
	db := srv.Open(t)
	db.SetMaxIdleConns(0) // each reading on a fresh backend
	s, err := pg.Dialect{}.Probe(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	var lsn string
	if err := db.QueryRow(`SELECT pg_current_wal_lsn()::text`).Scan(&lsn); err != nil {
		t.Fatal(err)
	}
	start, err := parseLSN(lsn)
	if err != nil {
		t.Fatal(err)
	}
	s.SetProp(pg.PropDataDirectory, "") // read as from another machine
	faults := func(warm bool) float64 {
		t.Helper()
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		var pid int
		if err := conn.QueryRowContext(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
			t.Fatal(err)
		}
		f, err := newFetcher(collectors.WithPool(ctx, db), conn, s, start)
		if err != nil {
			t.Fatal(err)
		}
		f.conn, f.warm = conn, warm
		segno := start / f.segSize
		buf := make([]byte, remoteChunk)
		read := func(i int) {
			off := uint64(i%6) * remoteChunk
			if n, err := f.readAt(segno, off, buf); err != nil || n != len(buf) {
				t.Fatalf("read %d: %d bytes, %v", i, n, err)
			}
		}
		read(0)
		before := minorFaults(t, pid)
		for i := 1; i <= 6; i++ {
			read(i)
		}
		return float64(minorFaults(t, pid)-before) / 6
	}
	cold, warm := faults(false), faults(true)
	t.Logf("backend minor faults per %d KiB read: %.0f without the warm-up, %.0f with it", remoteChunk>>10, cold, warm)
	// Three buffers of a chunk are 1,530 pages: a read without the warm-up
	// faults most of them in; one with it, a few.
	if warm > 100 || cold < 10*warm || cold < 500 {
		t.Errorf("minor faults per read: %.0f without the warm-up, %.0f with it; want the warm-up to remove most (fewer than 100 with it)", cold, warm)
	}
	// The warm-up needs no privilege beyond the reads' own: the GRANT
	// doctor names for reading the WAL over the connection.
	if _, err := db.Exec(`CREATE ROLE walreader LOGIN`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`GRANT EXECUTE ON FUNCTION pg_read_binary_file(text, bigint, bigint) TO walreader`); err != nil {
		t.Fatal(err)
	}
	rdb, err := sql.Open("pgx", strings.Replace(srv.DSN, "user=postgres", "user=walreader", 1))
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	var who string
	if err := rdb.QueryRow(`SELECT current_user`).Scan(&who); err != nil || who != "walreader" {
		t.Fatalf("connected as %q (%v), want walreader", who, err)
	}
	var n int64
	if err := rdb.QueryRow(mocksql.SQL(t, pg.Name, "warm_reader_allocator", s.VersionNum), int64(warmBytes)).Scan(&n); err != nil || n < 2 {
		t.Errorf("warm_reader_allocator as a role granted only pg_read_binary_file: %d bytes, %v", n, err)
	}
}

// minorFaults is a process's minor page faults so far (proc(5): the 10th
// field of /proc/PID/stat).
func minorFaults(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatalf("the backend's page faults: %v", err)
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	n, err := strconv.ParseInt(fields[7], 10, 64)
	if err != nil {
		t.Fatalf("/proc/%d/stat: %v", pid, err)
	}
	return n
}
