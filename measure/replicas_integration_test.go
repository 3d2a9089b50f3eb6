package measure_test

import (
	"context"
	"database/sql"
	"io"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/writeamp/writeamp/collectors"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/internal/testing/pgmatrix"
	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/reports"
	"github.com/writeamp/writeamp/result"
)

// TestPostgresStandbyEveryMajor measures a primary and its physical standby
// (a copy of the stopped primary's data directory, streaming) on every
// major, each figure held to what the test reads on the nodes itself: the
// primary's insert LSN around the workload (the standby replays exactly
// that WAL), pg_stat_replication's sent position, and the rows inserted.
func TestPostgresStandbyEveryMajor(t *testing.T) {
	t.Parallel()
	pgmatrix.EachParallel(t, func(t *testing.T, srv *pgmatrix.Server) {
		pdb, ps := openPG(t, srv.DSN)
		mustExec(t, pdb, `CREATE SCHEMA rp`)
		mustExec(t, pdb, `CREATE TABLE rp.t (id int PRIMARY KEY, v int) WITH (autovacuum_enabled = false)`)
		mustExec(t, pdb, `INSERT INTO rp.t SELECT g, 0 FROM generate_series(1, 1000) g`)
		st := pgmatrix.StartStandby(t, srv, "wa_standby")
		sdb, ss := openPG(t, st.DSN)
		if !ss.Has(pg.CapStandby) || ss.Has(pg.CapPrimary) {
			t.Fatalf("the standby probed as primary=%v standby=%v", ss.Has(pg.CapPrimary), ss.Has(pg.CapStandby))
		}
		// Nothing that writes, whatever the superuser may.
		for _, c := range []string{pg.CapCheckpoint, pg.CapHoldWAL, pg.CapCreateWalinspect, pg.CapWalinspect} {
			if ss.Has(c) {
				t.Errorf("the standby has capability %s: writeamp would write to it", c)
			}
		}
		awaitStreaming(t, pdb, sdb)
		t.Run("standby replays", func(t *testing.T) {
			p0 := insertLSN(t, pdb)
			run := wrapped(t, sdb, ss, "rp", psqlCmd(t, srv.DSN, `INSERT INTO rp.t SELECT g, 0 FROM generate_series(1001, 1500) g`))
			truth := insertLSN(t, pdb) - p0
			for _, w := range run.Warnings {
				if strings.Contains(w, "caught up") {
					t.Errorf("warning: %s", w)
				}
			}
			for _, name := range []string{"replayed_log_bytes", "log_bytes"} {
				if m := run.Database[name]; !m.OK() || m.V() != truth || m.Exactness != result.Exact {
					t.Errorf("%s %v (%s), want the primary's insert LSN difference %v, exact", name, m.Value, m.Exactness, truth)
				}
			}
			if m := run.Database["replayed_log_records"]; !m.OK() || m.V() < 500 {
				t.Errorf("replayed_log_records %v, want at least the 500 inserts' records", m.Value)
			}
			tb := run.Table("t")
			for _, name := range []string{"rows_inserted", "rows_updated", "hot_updates"} {
				m := tb.Metrics[name]
				if m.Exactness != result.Unavailable || m.Value != nil || !strings.Contains(m.Note, "a standby does not count replayed rows") {
					t.Errorf("standby %s = %+v, want unavailable: a standby does not count replayed rows", name, m)
				}
			}
			// The decoder read the standby's own pg_wal: one leaf insert a row.
			if m := metric(t, run.Index("t_pkey"), "leaf_inserts"); m.V() != 500 || m.Exactness != result.Exact {
				t.Errorf("t_pkey leaf inserts %v (%s), want 500 exact", m.V(), m.Exactness)
			}
			for _, m := range run.Missing {
				if m.Collector == "pg_wal" || m.Collector == "wal_replay" {
					t.Errorf("%s missing on the standby: %s", m.Collector, m.Reason)
				}
			}
			for _, f := range findingsOf(run) {
				if strings.Contains(f.Text, "added 0 index entries") {
					t.Errorf("finding on the standby: %s", f.Text)
				}
			}
		})
		t.Run("primary ships", func(t *testing.T) {
			// No CHECKPOINT before this window: its record would land
			// between the test's reading and the window's start.
			ps := ps
			ps.Caps = maps.Clone(ps.Caps)
			ps.Set(pg.CapCheckpoint, false, "the test reads the positions itself")
			awaitStreaming(t, pdb, sdb)
			s0 := sentLSN(t, pdb, "wa_standby")
			run := wrapped(t, pdb, ps, "rp", psqlCmd(t, srv.DSN, `INSERT INTO rp.t SELECT g, 0 FROM generate_series(1501, 2000) g`))
			truth := sentLSN(t, pdb, "wa_standby") - s0
			sent := run.Database["replica.wa_standby.log_bytes_sent"]
			if !sent.OK() || sent.V() != truth || sent.Exactness != result.Exact {
				t.Fatalf("log_bytes_sent %v (%s, %s), want pg_stat_replication.sent_lsn's difference %v; the window wrote %v", sent.V(), sent.Exactness, sent.Note, truth, run.Database["log_bytes"].V())
			}
			if lb := run.Database["log_bytes"]; sent.V() != lb.V() {
				t.Errorf("sent %v, but the window wrote %v: the tail wait should have shipped all of it", sent.V(), lb.V())
			}
			for _, name := range []string{"log_bytes_written", "log_bytes_flushed", "log_bytes_replayed"} {
				if m := run.Database["replica.wa_standby."+name]; !m.OK() || m.V() != truth {
					t.Errorf("%s %v, want %v", name, m.Value, truth)
				}
			}
			if m := run.Database["replicas"]; !m.OK() || m.V() != 1 {
				t.Errorf("replicas %v, want 1", m.Value)
			}
			if m := run.Database["cluster_log_bytes"]; !m.OK() || m.V() != 2*run.Database["log_bytes"].V() {
				t.Errorf("cluster_log_bytes %v, want twice the primary's log", m.Value)
			}
		})
		t.Run("one window, two nodes", func(t *testing.T) {
			ps := ps
			ps.Caps = maps.Clone(ps.Caps)
			ps.Set(pg.CapCheckpoint, false, "the primary's checkpoint record is no part of this comparison")
			awaitStreaming(t, pdb, sdb)
			p0 := insertLSN(t, pdb)
			node := &measure.Node{Label: "node1", Window: window(t, sdb, ss), Scope: collectors.Scope{Schemas: []string{"rp"}}}
			res, code, err := (&measure.Wrapped{Window: window(t, pdb, ps), Nodes: []*measure.Node{node}, Scope: collectors.Scope{Schemas: []string{"rp"}},
				Command: psqlCmd(t, srv.DSN, `INSERT INTO rp.t SELECT g, 0 FROM generate_series(2001, 2300) g`), Stdout: io.Discard}).Run(context.Background())
			if err != nil || code != 0 {
				t.Fatalf("measure: exit %d, %v", code, err)
			}
			truth := insertLSN(t, pdb) - p0
			if len(res.Runs) != 2 || res.Runs[1].Variant != "node1" {
				t.Fatalf("%d runs, want the primary's and node1's", len(res.Runs))
			}
			// The node's window ends once it has replayed all the primary
			// wrote, after the primary's own: WAL the primary writes in
			// between (13/14 settle for a second or more; the bgwriter logs
			// running transactions) is the node's and not the primary's.
			if lb := res.Runs[0].Database["log_bytes"]; lb.V() > truth || lb.V() < truth-1024 {
				t.Errorf("primary log_bytes %v, want %v or a record or two less", lb.V(), truth)
			}
			if rb := res.Runs[1].Database["replayed_log_bytes"]; !rb.OK() || rb.V() != truth {
				t.Errorf("node1 replayed_log_bytes %v, want the primary's %v", rb.Value, truth)
			}
			if m := metric(t, res.Runs[1].Index("t_pkey"), "leaf_inserts"); m.V() != 300 {
				t.Errorf("node1 t_pkey leaf inserts %v, want 300", m.V())
			}
			found := false
			for _, n := range res.Notes {
				found = found || strings.HasPrefix(n, "cluster log: ") && strings.Contains(n, "on 2 nodes")
			}
			if !found {
				t.Errorf("no cluster log note: %v", res.Notes)
			}
		})
		if srv.Major == 15 {
			t.Run("synchronous standby", func(t *testing.T) { syncStandby(t, srv, pdb) })
		}
	})
}

// syncStandby makes the standby synchronous: the commits' waits for it are
// a finding naming it.
func syncStandby(t *testing.T, srv *pgmatrix.Server, pdb *sql.DB) {
	mustExec(t, pdb, `ALTER SYSTEM SET synchronous_standby_names = 'wa_standby'`)
	mustExec(t, pdb, `SELECT pg_reload_conf()`)
	t.Cleanup(func() { pdb.Exec(`ALTER SYSTEM RESET synchronous_standby_names`); pdb.Exec(`SELECT pg_reload_conf()`) })
	for i := 0; ; i++ {
		var state string
		pdb.QueryRow(`SELECT sync_state FROM pg_stat_replication WHERE application_name = 'wa_standby'`).Scan(&state)
		if state == "sync" {
			break
		}
		if i == 100 {
			t.Fatalf("the standby did not become synchronous (sync_state %q)", state)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Enough commits that the wait sampler, which reads at most 1/120 of
	// the time, sees some of them waiting: with 300 (well under a second of
	// work) a run once had no sample in IPC.SyncRep at all.
	stmts := make([]string, 2000)
	for i := range stmts {
		stmts[i] = `UPDATE rp.t SET v = v + 1 WHERE id = 1`
	}
	_, s := openPG(t, srv.DSN)
	win := window(t, pdb, s)
	win.Observers = append(win.Observers, &measure.Waits{})
	res, code, err := (&measure.Wrapped{Window: win, Scope: collectors.Scope{Schemas: []string{"rp"}}, Command: psqlCmd(t, srv.DSN, stmts...), Stdout: io.Discard}).Run(context.Background())
	if err != nil || code != 0 {
		t.Fatalf("measure: exit %d, %v", code, err)
	}
	run := &res.Runs[0]
	if m := run.Database["replica.wa_standby.synchronous"]; !m.OK() || m.V() != 1 {
		t.Errorf("replica.wa_standby.synchronous %v, want 1", m.Value)
	}
	w := run.Database["wait_share.IPC.SyncRep"]
	if !w.OK() || w.V() <= 0 {
		t.Fatalf("no IPC.SyncRep wait share: %+v", w)
	}
	found := false
	fs := findingsOf(run)
	for _, f := range fs {
		found = found || strings.Contains(f.Text, "waited for standby wa_standby")
	}
	if !found {
		t.Errorf("no finding names the synchronous standby's waits: %v", fs)
	}
}

func insertLSN(t *testing.T, db *sql.DB) float64 {
	t.Helper()
	var v float64
	if err := db.QueryRow(`SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func sentLSN(t *testing.T, db *sql.DB, name string) float64 {
	t.Helper()
	var v float64
	if err := db.QueryRow(`SELECT pg_wal_lsn_diff(sent_lsn, '0/0') FROM pg_stat_replication WHERE application_name = $1`, name).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// awaitStreaming waits until the standby streams and has replayed all the
// primary wrote.
func awaitStreaming(t *testing.T, pdb, sdb *sql.DB) {
	t.Helper()
	for i := 0; ; i++ {
		var lsn string
		if err := pdb.QueryRow(`SELECT pg_current_wal_flush_lsn()::text`).Scan(&lsn); err != nil {
			t.Fatal(err)
		}
		var behind float64
		var streaming bool
		pdb.QueryRow(`SELECT count(*) > 0 FROM pg_stat_replication WHERE state = 'streaming'`).Scan(&streaming)
		if err := sdb.QueryRow(`SELECT coalesce(pg_wal_lsn_diff($1::pg_lsn, pg_last_wal_replay_lsn()), 1)`, lsn).Scan(&behind); err == nil && behind <= 0 && streaming {
			return
		}
		if i == 300 {
			t.Fatalf("the standby did not catch up with the primary in 30 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// findingsOf is what the reports say about one run.
func findingsOf(run *result.Run) []result.Finding {
	res := &result.Result{Server: result.Server{Dialect: "postgres"}, Runs: []result.Run{*run}}
	fs, _ := reports.Findings(reports.Build("", nil, []reports.Column{{Label: "run", Run: &res.Runs[0]}}), res)
	return fs
}
