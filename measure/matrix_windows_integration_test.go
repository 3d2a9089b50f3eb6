package measure_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/internal/testing/pgmatrix"
	"github.com/writeamp/writeamp/result"
)

// pg_stat_reset() inside the window, then fewer inserts than before: the
// counter grew past its "before" value again, yet the difference is not the
// truth, so it must be flagged, not reported as exact.
func matrixResetInWindow(t *testing.T, db *sql.DB, s dialects.Server) {
	mustExec(t, db, `CREATE TABLE reset_me (id int)`)
	t.Cleanup(func() { db.Exec(`DROP TABLE reset_me`) })
	// 13/14 create a database's statistics entry on first use and stamp it
	// like a reset; a window starts on a database whose statistics exist
	// (measure waits for them), so this one does too.
	publish(t, db, s, `INSERT INTO reset_me VALUES (0)`)
	waitInserted(t, db, "reset_me", 1)
	set := pgSet(t)
	sc := collectors.Scope{Tables: []string{"reset_me"}}
	before, err := set.Take(context.Background(), db, s, sc)
	if err != nil {
		t.Fatal(err)
	}
	publish(t, db, s, `INSERT INTO reset_me SELECT generate_series(1, 100)`)
	waitInserted(t, db, "reset_me", 101)
	publish(t, db, s, `SELECT pg_stat_reset()`, `INSERT INTO reset_me SELECT generate_series(1, 10)`)
	waitInserted(t, db, "reset_me", 10)
	after, err := set.Take(context.Background(), db, s, sc)
	if err != nil {
		t.Fatal(err)
	}
	d, err := collectors.Diff(before, after)
	if err != nil {
		t.Fatal(err)
	}
	m := d.Get(collectors.Key{Level: collectors.Table, Object: "public.reset_me", Metric: "rows_inserted"})
	if m.OK() || !strings.Contains(m.Note, "reset") {
		t.Errorf("rows_inserted after pg_stat_reset() in the window: %+v, want unavailable (reset)", m)
	}
	if len(d.Warnings) == 0 {
		t.Error("no warning about the reset")
	}
}

// A window that outlives the server's WAL retention: three WAL switches and
// checkpoints with the smallest max_wal_size recycle its start. A run's
// window holds its WAL with a temporary slot, so the WAL is still read
// exactly; a role that may read the WAL but not create slots gets a warning
// and derived numbers, never an error; no slot is left either way.
func matrixLongWindow(t *testing.T, srv *pgmatrix.Server, db *sql.DB, s dialects.Server) {
	for _, q := range []string{`ALTER SYSTEM SET max_wal_size = '32MB'`, `ALTER SYSTEM SET min_wal_size = '32MB'`, `ALTER SYSTEM SET wal_keep_size = 0`} {
		mustExec(t, db, q)
	}
	mustExec(t, db, `SELECT pg_reload_conf()`)
	mustExec(t, db, `CREATE SCHEMA lw`)
	mustExec(t, db, `CREATE TABLE lw.w (id int PRIMARY KEY, v text)`)
	t.Cleanup(func() {
		db.Exec(`DROP SCHEMA lw CASCADE`)
		db.Exec(`ALTER SYSTEM RESET ALL`)
		db.Exec(`SELECT pg_reload_conf()`)
	})
	recycle := []string{`SELECT pg_switch_wal()`, `CHECKPOINT`, `SELECT pg_switch_wal()`, `CHECKPOINT`, `SELECT pg_switch_wal()`, `CHECKPOINT`}
	n := 0
	// The window's command runs as the superuser; only writeamp's login changes.
	window := func(db *sql.DB, s dialects.Server) *result.Run {
		n++
		return wrapped(t, db, s, "lw", psqlCmd(t, srv.DSN, append([]string{fmt.Sprintf(`INSERT INTO lw.w SELECT g, md5(g::text) FROM generate_series(%d, %d) g`, n*10000, n*10000+999)}, recycle...)...))
	}
	run := window(db, s)
	if li := metric(t, run.Index("w_pkey"), "leaf_inserts"); li.Exactness != result.Exact || li.V() != 1000 {
		t.Errorf("held window: w_pkey leaf_inserts %v (%s), want exactly 1000", li.V(), li.Exactness)
	}
	if ck := run.Database["checkpoints"]; ck.V() < 3 {
		t.Errorf("the window's checkpoints were not counted: %+v", ck)
	}
	// A role that may read the WAL but not create slots.
	role := "writeamp_noslot"
	mustExec(t, db, `CREATE ROLE `+role+` LOGIN`)
	mustExec(t, db, `GRANT EXECUTE ON FUNCTION pg_read_binary_file(text, bigint, bigint) TO `+role)
	mustExec(t, db, `GRANT USAGE ON SCHEMA lw TO `+role)
	t.Cleanup(func() {
		db.Exec(`DROP OWNED BY ` + role)
		db.Exec(`DROP ROLE ` + role)
	})
	dsn := strings.Replace(srv.DSN, "user=postgres", "user="+role, 1)
	rdb, rs := openPG(t, dsn)
	if rs.Has(pg.CapHoldWAL) || !rs.Has(pg.CapWALFiles) {
		t.Fatalf("the role must read the WAL but not hold it: %v", rs.Caps)
	}
	run = window(rdb, rs)
	li := metric(t, run.Index("w_pkey"), "leaf_inserts")
	if li.Exactness != result.Derived || li.V() != 1000 {
		t.Errorf("recycled window: w_pkey leaf_inserts %v (%s), want derived 1000", li.V(), li.Exactness)
	}
	if w := strings.Join(run.Warnings, "\n"); !strings.Contains(w, "was recycled") || !strings.Contains(w, "REPLICATION") {
		t.Errorf("want a warning that the window's start was recycled and how to hold it: %q (missing: %+v)", w, run.Missing)
	}
	var slots int
	db.QueryRow(`SELECT count(*) FROM pg_replication_slots`).Scan(&slots)
	if slots != 0 {
		t.Errorf("%d replication slot(s) left on the server", slots)
	}
}

// matrixRemoteWAL measures a window as a login that may read the WAL
// segments only over the connection (EXECUTE on pg_read_binary_file, not
// the data directory's path: that setting is for superusers): the decoder
// reads them with pg_read_binary_file, its backends' allocator warmed
// first (the window spans a WAL switch, far more than four chunks), and
// the index's leaf inserts are exact, one per row.
func matrixRemoteWAL(t *testing.T, srv *pgmatrix.Server, db *sql.DB) {
	const role, rows = "writeamp_remote", 20000
	mustExec(t, db, `CREATE SCHEMA rw`)
	mustExec(t, db, `CREATE TABLE rw.r (id int PRIMARY KEY, v text)`)
	mustExec(t, db, `CREATE ROLE `+role+` LOGIN`)
	mustExec(t, db, `GRANT EXECUTE ON FUNCTION pg_read_binary_file(text, bigint, bigint) TO `+role)
	mustExec(t, db, `GRANT USAGE ON SCHEMA rw TO `+role)
	t.Cleanup(func() {
		db.Exec(`DROP SCHEMA rw CASCADE`)
		db.Exec(`DROP OWNED BY ` + role)
		db.Exec(`DROP ROLE ` + role)
	})
	rdb, rs := openPG(t, strings.Replace(srv.DSN, "user=postgres", "user="+role, 1))
	if !rs.Has(pg.CapWALFiles) || rs.Prop(pg.PropDataDirectory) != "" {
		t.Fatalf("the role must read the segments over the connection only: %v, data directory %q", rs.Caps, rs.Prop(pg.PropDataDirectory))
	}
	run := wrapped(t, rdb, rs, "rw", psqlCmd(t, srv.DSN,
		fmt.Sprintf(`INSERT INTO rw.r SELECT g, md5(g::text) FROM generate_series(1, %d) g`, rows/2),
		`SELECT pg_switch_wal()`,
		fmt.Sprintf(`INSERT INTO rw.r SELECT g, md5(g::text) FROM generate_series(%d, %d) g`, rows/2+1, rows)))
	li := metric(t, run.Index("r_pkey"), "leaf_inserts")
	if li.Exactness != result.Exact || li.V() != rows || !strings.Contains(li.Source, "pg_read_binary_file") {
		t.Errorf("r_pkey leaf_inserts %v (%s, from %q), want exactly %d read with pg_read_binary_file", li.V(), li.Exactness, li.Source, rows)
	}
}
