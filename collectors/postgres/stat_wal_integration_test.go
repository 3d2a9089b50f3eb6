package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/writeamp/writeamp/collectors"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/internal/testing/pgmatrix"
	"github.com/writeamp/writeamp/result"
)

// walTruth counts the records between two LSNs and sums their lengths with
// pg_walinspect (15+): the server's own reader, independent of writeamp's
// decoder. 14 has no pg_walinspect, and the machine's only pg_walinspect is
// 15's (it refuses 14's pages), so there the decoder's count, held against
// pg_walinspect on 15+ by TestDecoderAgreesWithWalinspect, stands in.
func walTruth(t *testing.T, db *sql.DB, major int, d *collectors.Delta, start, end string) (recs, bytes float64) {
	t.Helper()
	if major < 15 {
		r, b := d.Values[collectors.Key{Level: collectors.DB, Metric: "log_records_decoded"}], d.Values[collectors.Key{Level: collectors.DB, Metric: "log_bytes_decoded"}]
		if !r.OK() || !b.OK() {
			t.Fatalf("no decoded window on %d: %+v", major, d.Missing)
		}
		return r.V(), b.V()
	}
	if err := db.QueryRow(`SELECT count(*), coalesce(sum(record_length), 0) FROM pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn)`, start, end).Scan(&recs, &bytes); err != nil {
		t.Fatal(err)
	}
	return recs, bytes
}

// TestStatWALExactOnlyWhenTheWindowsOwn holds pg_stat_wal's figures against
// pg_walinspect's count of the same window, on every major with pg_stat_wal. A
// session that wrote just before the window and publishes its statistics
// inside it (as writeamp's own pre-window reads did on 17) makes the view
// count records the window does not hold: those figures must not be exact.
// A window where every session published at both marks must be exact and
// equal to pg_walinspect. (On main at c03a1ed the first window's log_records
// was exact and 1,000+ records above pg_walinspect's count.)
func TestStatWALExactOnlyWhenTheWindowsOwn(t *testing.T) {
	t.Parallel()
	pgmatrix.EachParallelSince(t, 14, func(t *testing.T, srv *pgmatrix.Server) {
		ctx := context.Background()
		db := srv.Open(t)
		s, err := pg.Dialect{}.Probe(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		if srv.Major >= 15 {
			if _, err := db.Exec(`CREATE EXTENSION pg_walinspect`); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.Exec(`CREATE TABLE t (id int PRIMARY KEY, v text) WITH (autovacuum_enabled = false)`); err != nil {
			t.Fatal(err)
		}
		conn := func() *sql.Conn {
			c, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
		exec := func(c *sql.Conn, qs ...string) {
			t.Helper()
			for _, q := range qs {
				if _, err := c.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
		}
		// publish makes a session publish what it counted: after the
		// minimum interval (15+: 1 s, 14: 500 ms), going idle sends it.
		publish := func(c *sql.Conn) {
			time.Sleep(1100 * time.Millisecond)
			exec(c, `SELECT 1`)
		}
		set := NewSet()
		sc := collectors.Scope{Tables: []string{"t"}}
		window := func(late *sql.Conn, base int) (*collectors.Delta, float64, float64) {
			t.Helper()
			w := conn()
			defer w.Close()
			exec(w, `SELECT 1`) // the session's first publication is out of the way
			publish(w)
			before, err := set.Take(ctx, db, s, sc)
			if err != nil {
				t.Fatal(err)
			}
			exec(w, fmt.Sprintf(`INSERT INTO t SELECT g, md5(g::text) FROM generate_series(%d, %d) g`, base, base+999),
				fmt.Sprintf(`UPDATE t SET v = 'x' WHERE id BETWEEN %d AND %d`, base, base+99))
			publish(w)
			if late != nil {
				publish(late) // its pre-window records land now, inside the window
			}
			time.Sleep(700 * time.Millisecond) // 14: the collector's file is up to 500 ms old
			after, err := set.Take(ctx, db, s, sc)
			if err != nil {
				t.Fatal(err)
			}
			d, err := collectors.Diff(before, after)
			if err != nil {
				t.Fatal(err)
			}
			set.RunInterval(ctx, db, d)
			recs, bytes := walTruth(t, db, srv.Major, d, before.Marks[MarkLSN], after.Marks[MarkLSN])
			return d, recs, bytes
		}
		get := func(d *collectors.Delta, m string) result.Metric {
			return d.Values[collectors.Key{Level: collectors.DB, Metric: m}]
		}

		// A session that writes twice within its publication interval holds
		// the second write's counts until it next goes idle a second later.
		late := conn()
		defer late.Close()
		exec(late, `INSERT INTO t SELECT g, 'pre' FROM generate_series(1000000, 1000000) g`,
			`INSERT INTO t SELECT g, 'pre' FROM generate_series(1000001, 1001000) g`)
		d, recs, bytes := window(late, 1)
		lr, lb := get(d, "log_records"), get(d, "log_bytes_stat")
		t.Logf("late window: pg_stat_wal %v records %v bytes (%s), pg_walinspect %v records %v bytes; decoded %v",
			lr.V(), lb.V(), lr.Exactness, recs, bytes, get(d, "log_records_decoded").V())
		if lr.V() <= recs {
			t.Fatalf("the late session's records were not counted in the window (pg_stat_wal %v, pg_walinspect %v): the test proves nothing", lr.V(), recs)
		}
		for _, m := range []string{"log_records", "fpi_count", "log_bytes_stat", "wal_buffers_full"} {
			if v := get(d, m); v.Exactness == result.Exact {
				t.Errorf("%s = %v labelled exact, but pg_stat_wal counted %v records where the window holds %v", m, v.V(), lr.V(), recs)
			}
		}
		if got := get(d, "log_records_decoded"); got.V() != recs || got.Exactness != result.Exact {
			t.Errorf("log_records_decoded = %v (%s), pg_walinspect counts %v", got.V(), got.Exactness, recs)
		}
		if got := get(d, "log_bytes_decoded"); got.V() != bytes {
			t.Errorf("log_bytes_decoded = %v, pg_walinspect counts %v bytes", got.V(), bytes)
		}

		d, recs, bytes = window(nil, 10000)
		lr, lb = get(d, "log_records"), get(d, "log_bytes_stat")
		t.Logf("published window: pg_stat_wal %v records %v bytes (%s), pg_walinspect %v records %v bytes", lr.V(), lb.V(), lr.Exactness, recs, bytes)
		if lr.Exactness == result.Exact && (lr.V() != recs || lb.V() != bytes) {
			t.Errorf("log_records %v / log_bytes_stat %v exact, pg_walinspect counts %v / %v", lr.V(), lb.V(), recs, bytes)
		}
		if lr.Exactness != result.Exact {
			t.Errorf("every session published at both marks, yet log_records is %s: %s", lr.Exactness, lr.Note)
		}
	})
}
