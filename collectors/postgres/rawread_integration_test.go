package postgres

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
	"github.com/writeamp/writeamp/internal/testing/pgmatrix"
)

// The remote WAL reader's chunks come through pg.ReadBytesInto (pgconn,
// binary format, one copy): the same bytes as database/sql gives for the
// same pg_read_binary_file call, an error for a value longer than the
// buffer, and ErrNotPgx on another driver, where the reader falls back.
func TestReadBytesIntoReadsWhatDatabaseSQLReads(t *testing.T) {
	t.Parallel()
	srv := pgmatrix.Start(t, 15)
	ctx := context.Background()
	db := srv.Open(t)
	var seg string
	if err := db.QueryRow(`SELECT pg_walfile_name(pg_current_wal_lsn())`).Scan(&seg); err != nil {
		t.Fatal(err)
	}
	text := mocksql.SQL(t, pg.Name, "read_wal_segment", 150000)
	var want []byte
	if err := db.QueryRow(text, "pg_wal/"+seg, int64(8192), int64(65536)).Scan(&want); err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	got := make([]byte, 65536)
	n, err := pg.ReadBytesInto(ctx, conn, text, []string{"pg_wal/" + seg, "8192", "65536"}, got)
	if err != nil || n != len(want) || !bytes.Equal(got[:n], want) {
		t.Fatalf("ReadBytesInto: %d bytes, %v; database/sql read %d bytes, equal %v", n, err, len(want), bytes.Equal(got[:n], want))
	}
	if _, err := pg.ReadBytesInto(ctx, conn, text, []string{"pg_wal/" + seg, "0", "65536"}, make([]byte, 100)); err == nil || !strings.Contains(err.Error(), "65536 bytes returned, 100 asked") {
		t.Errorf("a value longer than the buffer: %v", err)
	}
	// The connection is still usable after that error, and a missing file
	// is the server's error, which the reader recognises.
	if _, err := pg.ReadBytesInto(ctx, conn, text, []string{"pg_wal/000000FF00000000000000FF", "0", "8192"}, got); err == nil || !strings.Contains(err.Error(), "could not open file") {
		t.Errorf("a missing segment: %v", err)
	}
	mdb, _ := mocksql.New(t)
	mconn, err := mdb.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer mconn.Close()
	if _, err := pg.ReadBytesInto(ctx, mconn, text, nil, got); !errors.Is(err, pg.ErrNotPgx) {
		t.Errorf("another driver: %v, want ErrNotPgx", err)
	}
}
