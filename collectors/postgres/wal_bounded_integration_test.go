package postgres

import (
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/writeamp/writeamp/collectors"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
	"github.com/writeamp/writeamp/internal/testing/pgmatrix"
)

// TestDecoderMemoryIsBoundedInTheWindow holds the decoder's memory to what
// is open at a time, not to the window: 4,000 transactions (with aborted
// and committed subtransactions) on a relation outside the scope fold into
// a few rows per relation and class (one row per transaction before), and a
// window across several segments allocates about one segment's bytes, not
// one per segment.
func TestDecoderMemoryIsBoundedInTheWindow(t *testing.T) {
	srv := pgmatrix.Start(t, 17)
	ctx := context.Background()
	db := srv.Open(t)
	exec := func(qs ...string) {
		t.Helper()
		for _, q := range qs {
			if _, err := db.Exec(q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
	exec(`CREATE TABLE t1 (id int PRIMARY KEY)`, `CREATE TABLE other (id int, pad text)`)
	s, err := pg.Dialect{}.Probe(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	set := NewSet()
	before, err := set.Take(ctx, db, s, collectors.Scope{Tables: []string{"t1"}})
	if err != nil {
		t.Fatal(err)
	}
	exec(`INSERT INTO t1 SELECT generate_series(1, 100)`,
		`DO $$ BEGIN FOR i IN 1..4000 LOOP
		   INSERT INTO other VALUES (i, repeat('x', 2000));
		   IF i % 10 = 0 THEN
		     BEGIN INSERT INTO other VALUES (-i); RAISE EXCEPTION 'roll back the subtransaction'; EXCEPTION WHEN raise_exception THEN NULL; END;
		     BEGIN INSERT INTO other VALUES (-i); END;
		   END IF;
		   COMMIT; END LOOP; END $$`,
		`SELECT pg_switch_wal()`, `INSERT INTO other VALUES (0)`, `SELECT pg_switch_wal()`, `INSERT INTO other VALUES (0)`)
	after, err := set.Take(ctx, db, s, collectors.Scope{Tables: []string{"t1"}})
	if err != nil {
		t.Fatal(err)
	}
	w := walWindow{start: before.Marks[MarkLSN], end: after.Marks[MarkLSN], rels: relMap(before, after)}
	w.dboid, _ = strconv.ParseInt(s.Prop(pg.PropDatabaseOID), 10, 64)
	for i := 0; i < 50; i++ {
		var ahead int64
		db.QueryRow(mocksql.SQL(t, pg.Name, "flush_lsn", s.VersionNum), w.end).Scan(&ahead)
		if ahead >= 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	lo, _ := parseLSN(w.start)
	hi, _ := parseLSN(w.end)
	seg, _ := strconv.ParseUint(s.Prop(pg.PropWALSegmentSize), 10, 64)
	if segs := hi/seg - lo/seg + 1; segs < 3 {
		t.Fatalf("the window spans %d segments, the test needs 3 or more", segs)
	}
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	rows, _, src, err := decodeWindow(ctx, db, s, w)
	runtime.ReadMemStats(&m1)
	if err != nil {
		t.Fatal(err)
	}
	alloc := m1.TotalAlloc - m0.TotalAlloc
	t.Logf("%s: %d rows, %d MiB allocated for a window of %d MiB", src, len(rows), alloc>>20, (hi-lo)>>20)
	if len(rows) > 60 {
		t.Errorf("%d rows for a window of 4,000 transactions: rows grow with the transactions again", len(rows))
	}
	if limit := seg + 8<<20; alloc > limit {
		t.Errorf("decoding allocated %d MiB (more than one %d MiB segment and 8 MiB): a buffer per segment again?", alloc>>20, seg>>20)
	}
	var other float64
	for _, r := range rows {
		if r.xact == "other" {
			other += r.recs
		}
	}
	if other < 4000 {
		t.Errorf("%v records of transactions on other relations, want at least 4,000: %+v", other, rows)
	}
}
