package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/writeamp/writeamp/collectors"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/internal/testing/mocksql"
	"github.com/writeamp/writeamp/internal/testing/pgmatrix"
)

// TestDecoderAgreesWithWalinspect reads one window of varied WAL on every
// major that has pg_walinspect, with writeamp's decoder and with
// pg_walinspect, and requires the same figures from both for every relation
// and transaction class, and the same record count and bytes as
// pg_get_wal_stats: inserts and B-tree splits, HOT and non-HOT updates,
// deletes, full-page images after a checkpoint, TOAST records larger than a
// page, a subtransaction, VACUUM, and a WAL segment switch in the middle.
func TestDecoderAgreesWithWalinspect(t *testing.T) {
	t.Parallel()
	pgmatrix.EachParallelSince(t, 15, func(t *testing.T, srv *pgmatrix.Server) {
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
		exec(`CREATE EXTENSION pg_walinspect`,
			`CREATE TABLE t1 (id int PRIMARY KEY, v text, k int) WITH (fillfactor = 70, autovacuum_enabled = false)`,
			`CREATE INDEX t1_k ON t1 (k)`,
			`CREATE TABLE t2 (id int PRIMARY KEY, big text) WITH (autovacuum_enabled = false)`,
			`CREATE TABLE other (id int PRIMARY KEY)`)
		s, err := pg.Dialect{}.Probe(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		if !s.Has(pg.CapWALFiles) || !s.Has(pg.CapWalinspect) {
			t.Fatalf("the superuser must have both sources: %v", s.Caps)
		}
		set := NewSet()
		before, err := set.Take(ctx, db, s, collectors.Scope{Tables: []string{"t1", "t2"}})
		if err != nil {
			t.Fatal(err)
		}
		exec(`INSERT INTO t1 SELECT g, md5(g::text), g % 97 FROM generate_series(1, 5000) g`,
			`CHECKPOINT`,
			`UPDATE t1 SET k = k + 1 WHERE id <= 1000`,
			`UPDATE t1 SET v = left(v, 30) WHERE id > 4000`,
			`SELECT pg_switch_wal()`,
			`BEGIN; INSERT INTO t1 VALUES (6001, 'a', 1); SAVEPOINT s; INSERT INTO t1 VALUES (6002, 'b', 2); ROLLBACK TO s; INSERT INTO t1 VALUES (6003, 'c', 3); COMMIT`,
			`DELETE FROM t1 WHERE id BETWEEN 2000 AND 2500`,
			`INSERT INTO t2 SELECT g, string_agg(md5((g * 1000 + i)::text), '') FROM generate_series(1, 20) g, generate_series(1, 400) i GROUP BY g`,
			`INSERT INTO other SELECT generate_series(1, 300)`,
			`VACUUM t1`)
		// Two operations of a workload, each reading its transaction id as
		// the runner does; a third transaction is named by nobody.
		xacts := &collectors.Xacts{}
		named := func(op string, stmts ...string) {
			t.Helper()
			tx, err := db.Begin()
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range stmts {
				if _, err := tx.Exec(st); err != nil {
					t.Fatalf("%s: %v", st, err)
				}
			}
			var xid sql.NullInt64
			if err := tx.QueryRow(mocksql.SQL(t, pg.Name, "current_xact_id", s.VersionNum)).Scan(&xid); err != nil || !xid.Valid {
				t.Fatalf("transaction id: %v %v", xid, err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			xacts.Add(uint32(xid.Int64), op)
		}
		named("fill", `INSERT INTO t1 SELECT g, md5(g::text), g % 7 FROM generate_series(7001, 7400) g`, `INSERT INTO other VALUES (1000)`)
		named("touch", `UPDATE t1 SET k = k + 1 WHERE id BETWEEN 7001 AND 7100`, `DELETE FROM t1 WHERE id BETWEEN 7101 AND 7150`)
		named("fill", `DELETE FROM t1 WHERE id BETWEEN 7201 AND 7250`)
		exec(`UPDATE t1 SET v = 'y' WHERE id BETWEEN 7301 AND 7400`)
		after, err := set.Take(ctx, db, s, collectors.Scope{Tables: []string{"t1", "t2"}})
		if err != nil {
			t.Fatal(err)
		}
		w := walWindow{start: before.Marks[MarkLSN], end: after.Marks[MarkLSN], rels: relMap(before, after)}
		fmt.Sscan(s.Prop(pg.PropDatabaseOID), &w.dboid)
		for i := 0; i < 50; i++ { // flushed up to the end
			var ahead int64
			db.QueryRow(mocksql.SQL(t, pg.Name, "flush_lsn", s.VersionNum), w.end).Scan(&ahead)
			if ahead >= 0 {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		dec, dpages, _, err := decodeWindow(ctx, db, s, w)
		if err != nil {
			t.Fatalf("decoder: %v", err)
		}
		// The same segments over the connection instead of from the local
		// data directory.
		remote := s
		remote.Props = map[string]string{}
		for k, v := range s.Props {
			remote.Props[k] = v
		}
		remote.SetProp(pg.PropDataDirectory, "")
		rdec, _, rsrc, err := decodeWindow(ctx, db, remote, w)
		if err != nil || !strings.Contains(rsrc, "pg_read_binary_file") || strings.Contains(rsrc, "connections") {
			t.Fatalf("decoder over the connection: %v (%s)", err, rsrc)
		}
		// And over two, the chunks read by turns (the window spans a WAL
		// switch, so segments and chunks both alternate).
		r2dec, _, r2src, err := decodeWindow(collectors.WithPool(ctx, db), db, remote, w)
		if err != nil || !strings.Contains(r2src, "on 2 connections") {
			t.Fatalf("decoder over two connections: %v (%s)", err, r2src)
		}
		ins, ipages, _, err := walinspectWindow(ctx, db, s, w)
		if err != nil {
			t.Fatalf("pg_walinspect: %v", err)
		}
		sum := func(rows []walRow) (map[string]walRow, walRow) {
			m := map[string]walRow{}
			var total walRow
			for _, r := range rows {
				k := fmt.Sprintf("%d/%d/%s", r.db, r.node, r.xact)
				if _, mine := w.rels[r.node]; mine && r.db == w.dboid {
					k = fmt.Sprintf("%d/%d", r.db, r.node) // a measured relation's figures do not depend on the class
				}
				a := m[k]
				a.recs += r.recs
				a.bytes += r.bytes
				a.fpiBytes += r.fpiBytes
				a.fpis += r.fpis
				a.leafIns += r.leafIns
				a.leafSplit += r.leafSplit
				a.newpage += r.newpage
				m[k] = a
				total.recs += r.recs
				total.bytes += r.bytes
			}
			return m, total
		}
		dm, dt := sum(dec)
		im, it := sum(ins)
		if rm, _ := sum(rdec); fmt.Sprint(rm) != fmt.Sprint(dm) {
			t.Errorf("read over the connection and from the data directory differ:\n%v\n%v", rm, dm)
		}
		if rm, _ := sum(r2dec); fmt.Sprint(rm) != fmt.Sprint(dm) {
			t.Errorf("read over two connections and from the data directory differ:\n%v\n%v", rm, dm)
		}
		for k, a := range im {
			if dm[k] != a {
				t.Errorf("%s: decoder %+v, pg_walinspect %+v", k, dm[k], a)
			}
		}
		for k, a := range dm {
			if _, ok := im[k]; !ok {
				t.Errorf("%s: only the decoder saw %+v", k, a)
			}
		}
		if len(ipages) == 0 || len(ipages) != len(dpages) {
			t.Errorf("pages touched: decoder %v, pg_walinspect %v", dpages, ipages)
		}
		for node, n := range ipages {
			if dpages[node] != n {
				t.Errorf("pages of %d: decoder %v, pg_walinspect %v", node, dpages[node], n)
			}
		}
		var recs, bytes float64
		if err := db.QueryRow(`SELECT sum(count), sum(combined_size) FROM pg_get_wal_stats($1, $2, false)`, w.start, w.end).Scan(&recs, &bytes); err != nil {
			t.Fatal(err)
		}
		if dt.recs != recs || dt.bytes != bytes || it.recs != recs {
			t.Errorf("records/bytes: decoder %v/%v, pg_walinspect %v/%v, pg_get_wal_stats %v/%v", dt.recs, dt.bytes, it.recs, it.bytes, recs, bytes)
		}
		// The split by operation: the same from both readers, and with the
		// unattributed records exactly the in-scope log.
		split := func(read func(walWindow) error) *collectors.OperationLog {
			t.Helper()
			ws := w
			ws.xacts, ws.ops, ws.seen = xacts, &collectors.OperationLog{}, newBitset(xacts.Len())
			if err := read(ws); err != nil {
				t.Fatal(err)
			}
			return ws.ops
		}
		dsplit := split(func(ws walWindow) error { _, _, _, err := decodeWindow(ctx, db, s, ws); return err })
		// pg_walinspect's split comes from the same read of the window:
		// pg_get_wal_records_info is called once, and once more on 15 for
		// the pages (16+ read those with pg_get_wal_block_info). Counted by
		// the server for this transaction (track_functions).
		var calls int64
		isplit := split(func(ws walWindow) error {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				return err
			}
			defer tx.Rollback()
			if _, err := tx.Exec(`SET LOCAL track_functions = 'all'`); err != nil {
				return err
			}
			if _, _, _, err := walinspectWindow(ctx, tx, s, ws); err != nil {
				return err
			}
			return tx.QueryRow(`SELECT pg_stat_get_xact_function_calls('pg_get_wal_records_info(pg_lsn, pg_lsn)'::regprocedure)`).Scan(&calls)
		})
		if want := map[bool]int64{true: 2, false: 1}[s.VersionNum < 160000]; calls != want {
			t.Errorf("pg_get_wal_records_info called %d times for the window and its split, want %d", calls, want)
		}
		if !reflect.DeepEqual(dsplit, isplit) {
			t.Errorf("split by operation: decoder %s, pg_walinspect %s", opsString(dsplit), opsString(isplit))
		}
		var inScope float64
		for _, r := range dec {
			if _, mine := w.rels[r.node]; (mine && r.db == w.dboid) || (r.node == 0 && r.xact == "scope") {
				inScope += r.bytes
			}
		}
		if f, t2 := dsplit.Ops["fill"], dsplit.Ops["touch"]; f == nil || t2 == nil || f.Xacts != 2 || t2.Xacts != 1 ||
			f.Total.Bytes+t2.Total.Bytes+dsplit.Unattributed.Total.Bytes != inScope || f.Total.LeafInserts != 400+400 {
			t.Errorf("split by operation %s does not add up to the in-scope %v B (fill: 2 transactions, 400 rows into 2 indexes; touch: 1)", opsString(dsplit), inScope)
		}
		var splits float64
		for _, r := range dec {
			splits += r.leafSplit
		}
		if splits == 0 || dt.recs < 10000 {
			t.Errorf("the window is too plain to test the decoder: %v records, %v splits", dt.recs, splits)
		}
	})
}

func opsString(l *collectors.OperationLog) string {
	var b strings.Builder
	for name, o := range l.Ops {
		fmt.Fprintf(&b, "%s: %d xacts %+v; ", name, o.Xacts, o.Total)
	}
	fmt.Fprintf(&b, "unattributed %+v", l.Unattributed.Total)
	return b.String()
}
