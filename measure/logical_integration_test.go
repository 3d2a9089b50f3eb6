package measure_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"maps"
	"testing"
	"time"

	"github.com/writeamp/writeamp/collectors"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/internal/testing/pgmatrix"
	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/pgembed"
	"github.com/writeamp/writeamp/result"
)

// TestPostgresLogicalSubscriber measures a publisher and its logical
// subscriber (two throwaway PostgreSQL 16 servers) in one window, each
// figure held to the test's own reads: the publisher's slot decoded what
// pg_stat_replication_slots says, and the subscriber, which applies the
// rows as ordinary DML and so counts them (unlike a physical standby),
// updated exactly the rows the publisher updated.
func TestPostgresLogicalSubscriber(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pub, sub := pgmatrix.Start(t, 16), pgmatrix.Start(t, 16)
	pdb, _ := openPG(t, pub.DSN)
	mustExec(t, pdb, `ALTER SYSTEM SET wal_level = logical`)
	if err := pub.Server.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	pdb, ps := openPG(t, pub.DSN)
	sdb, ss := openPG(t, sub.DSN)
	const table = `CREATE TABLE lr.t (id int PRIMARY KEY, v int, note text) WITH (autovacuum_enabled = false)`
	for _, db := range []*sql.DB{pdb, sdb} {
		mustExec(t, db, `CREATE SCHEMA lr`)
		mustExec(t, db, table)
	}
	mustExec(t, pdb, `INSERT INTO lr.t SELECT g, 0, 'x' FROM generate_series(1, 1000) g`)
	mustExec(t, pdb, `CREATE PUBLICATION wa_pub FOR TABLE lr.t`)
	mustExec(t, sdb, fmt.Sprintf(`CREATE SUBSCRIPTION wa_sub CONNECTION 'host=%s port=%d user=postgres dbname=%s' PUBLICATION wa_pub`, pub.Dir, pub.Port, pgembed.Database))
	t.Cleanup(func() { sdb.Exec(`DROP SUBSCRIPTION IF EXISTS wa_sub`) })
	awaitSubscribed(t, pdb, sdb, 1000)

	// No CHECKPOINT in the publisher's window: its record would be decoded
	// (and counted) between the test's reading and the window's start.
	ps.Caps = maps.Clone(ps.Caps)
	ps.Set(pg.CapCheckpoint, false, "the test reads the slot itself")
	slot0 := slotBytes(t, pdb, "wa_sub")
	node := &measure.Node{Label: "node1", Window: window(t, sdb, ss), Scope: collectors.Scope{Schemas: []string{"lr"}}}
	res, code, err := (&measure.Wrapped{Window: window(t, pdb, ps), Nodes: []*measure.Node{node}, Scope: collectors.Scope{Schemas: []string{"lr"}},
		Command: psqlCmd(t, pub.DSN, `UPDATE lr.t SET v = v + 1 WHERE id <= 300`, `INSERT INTO lr.t SELECT g, 0, 'y' FROM generate_series(1001, 1200) g`),
		Stdout:  io.Discard}).Run(ctx)
	if err != nil || code != 0 {
		t.Fatalf("measure: exit %d, %v", code, err)
	}
	awaitSubscribed(t, pdb, sdb, 1200)
	decoded := slotBytes(t, pdb, "wa_sub") - slot0
	if len(res.Runs) != 2 {
		t.Fatalf("%d runs, want the publisher's and the subscriber's", len(res.Runs))
	}
	p, s := &res.Runs[0], &res.Runs[1]
	if m := p.Database[result.SlotPrefix+"wa_sub.decoded_bytes"]; !m.OK() || m.V() != decoded || decoded <= 0 || m.Exactness != result.Exact {
		t.Errorf("publisher replication_slot.wa_sub.decoded_bytes %v (%s), the test's pg_stat_replication_slots reads give %v", m.V(), m.Exactness, decoded)
	}
	if m := p.Database[result.ReplicaPrefix+"wa_sub.log_bytes_sent"]; !m.OK() || m.V() <= 0 {
		t.Errorf("publisher replica.wa_sub.log_bytes_sent %+v: the subscription's walsender is in pg_stat_replication", m)
	}
	for _, run := range []*result.Run{p, s} {
		tb := run.Table("t")
		if tb == nil {
			t.Fatalf("%s: no table t", run.Variant)
		}
		for name, want := range map[string]float64{"rows_updated": 300, "rows_inserted": 200} {
			if m := tb.Metrics[name]; !m.OK() || m.V() != want || m.Exactness != result.Exact {
				t.Errorf("%s %s = %v (%s, %s), the statements changed %v", run.Variant, name, m.V(), m.Exactness, m.Note, want)
			}
		}
	}
	if m := metric(t, s.Index("t_pkey"), "leaf_inserts"); m.V() < 200 {
		t.Errorf("subscriber t_pkey leaf inserts %v, want at least the 200 inserted rows", m.V())
	}
}

func slotBytes(t *testing.T, db *sql.DB, slot string) float64 {
	t.Helper()
	var v float64
	if err := db.QueryRow(`SELECT total_bytes FROM pg_stat_replication_slots WHERE slot_name = $1`, slot).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// awaitSubscribed waits until the subscriber has the publisher's rows and
// has confirmed all the publisher wrote.
func awaitSubscribed(t *testing.T, pdb, sdb *sql.DB, rows int) {
	t.Helper()
	for i := 0; ; i++ {
		var n int
		var caughtUp bool
		sdb.QueryRow(`SELECT count(*) FROM lr.t`).Scan(&n)
		pdb.QueryRow(`SELECT coalesce(bool_and(confirmed_flush_lsn >= pg_current_wal_flush_lsn()), false) FROM pg_replication_slots WHERE slot_name = 'wa_sub'`).Scan(&caughtUp)
		if n == rows && caughtUp {
			return
		}
		if i == 300 {
			t.Fatalf("the subscriber has %d rows of %d (caught up %v) after 30 s", n, rows, caughtUp)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
