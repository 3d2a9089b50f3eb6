package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/writeamp/writeamp/collectors"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/internal/testing/pgmatrix"
	"github.com/writeamp/writeamp/result"
)

// TestWindowEndingAtAPageBoundary ends a window with a record that fills
// its page to the last byte, on a server of its own that writes nothing
// after it. The insert position then points past the next page's header,
// which no one writes or flushes until the next record: the decoder must
// read the window at once (it waited 5 s and gave up, losing every WAL
// figure of a CI run's variant, before the records' end was taken at the
// page boundary).
func TestWindowEndingAtAPageBoundary(t *testing.T) {
	t.Parallel()
	srv := pgmatrix.Start(t, 15)
	ctx := context.Background()
	db := srv.Open(t)
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE t (id int PRIMARY KEY) WITH (autovacuum_enabled = false)`); err != nil {
		t.Fatal(err)
	}
	s, err := pg.Dialect{}.Probe(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	insertLSN := func() uint64 {
		t.Helper()
		var v string
		if err := db.QueryRow(`SELECT pg_current_wal_insert_lsn()::text`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		l, err := parseLSN(v)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	// A non-transactional logical message is one record of a size we
	// choose, flushed by nobody in particular.
	emit := func(n int) {
		t.Helper()
		if _, err := db.Exec(`SELECT pg_logical_emit_message(false, 'w', repeat('x', $1))`, n); err != nil {
			t.Fatal(err)
		}
	}
	set := NewSet()
	scope := collectors.Scope{Tables: []string{"t"}}
	for try := 0; try < 5; try++ {
		before, err := set.Take(ctx, db, s, scope)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`INSERT INTO t SELECT g FROM generate_series($1::int * 100 + 1, $1::int * 100 + 100) g`, try); err != nil {
			t.Fatal(err)
		}
		// The overhead of a message record beyond its payload (payloads
		// over 255 bytes, so the main data header is the same size).
		if room := walPageSize - insertLSN()%walPageSize; room < 1200 {
			emit(int(room) + 300) // on into the next page, with room there
		}
		at := insertLSN()
		emit(300)
		overhead := int(insertLSN()-at) - 300 // MAXALIGN(header+300) - 300: overhead rounded up
		room := int(walPageSize - insertLSN()%walPageSize)
		emit(room - overhead)
		if end := insertLSN(); end%walPageSize != shortPageHeader {
			t.Logf("try %d: the message ended at %X, not at a page boundary (another record came between)", try, end)
			continue
		}
		after, err := set.Take(ctx, db, s, scope)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := parseLSN(after.Marks[MarkLSN]); got%walPageSize != shortPageHeader {
			t.Logf("try %d: the snapshot's mark is %s (something wrote after the message)", try, after.Marks[MarkLSN])
			continue
		}
		start := time.Now()
		cs, err := PgWAL{}.CollectInterval(ctx, db, s, before, after)
		if err != nil {
			t.Fatalf("window ending at %s: %v", after.Marks[MarkLSN], err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("reading the window took %s: it waited on WAL past its records", d)
		}
		for _, c := range cs {
			if c.Key.Level == collectors.Index && c.Key.Metric == result.LeafInserts.Name && c.Value != 100 {
				t.Errorf("%s: %v leaf inserts, want the 100 rows inserted", c.Key.Object, c.Value)
			}
		}
		t.Logf("window %s to %s read in %s", before.Marks[MarkLSN], after.Marks[MarkLSN], time.Since(start))
		return
	}
	t.Fatal("no try ended its window at a page boundary")
}
