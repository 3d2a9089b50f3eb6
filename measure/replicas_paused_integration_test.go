package measure_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"maps"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/writeamp/writeamp/collectors"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/internal/testing/pgmatrix"
	"github.com/writeamp/writeamp/internal/testing/testenv"
	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/reports"
	"github.com/writeamp/writeamp/result"
)

// TestPostgresPausedStandby measures a standby whose replay is paused
// (pg_wal_replay_pause()): it receives the window's WAL and replays none of
// it. Its figures are held to the standby's own positions, read here: the
// bytes it received are exact and equal its receive LSN's difference, no
// figure of it is an exact zero, the cluster's exact total includes what it
// received, and a note names the pause. Resumed, a window is exact again.
func TestPostgresPausedStandby(t *testing.T) {
	t.Parallel()
	bench, err := exec.LookPath("pgbench")
	if err != nil {
		if testenv.CI() {
			t.Fatalf("pgbench not installed under CI=true: %v", err)
		}
		t.Skipf("pgbench not installed: %v", err)
	}
	pgmatrix.EachParallel(t, func(t *testing.T, srv *pgmatrix.Server) {
		pdb, ps := openPG(t, srv.DSN)
		if out, err := exec.Command(bench, "-i", "-s", "1", "-q", srv.DSN).CombinedOutput(); err != nil {
			t.Fatalf("pgbench -i: %v\n%s", err, out)
		}
		mustExec(t, pdb, `CREATE TABLE public.ins (id int PRIMARY KEY, v int) WITH (autovacuum_enabled = false)`)
		mustExec(t, pdb, `CREATE INDEX ins_v ON public.ins (v)`)
		st := pgmatrix.StartStandby(t, srv, "wa_paused")
		sdb, ss := openPG(t, st.DSN)
		// No CHECKPOINT on the primary: the test's own readings of the
		// positions bracket the window.
		ps.Caps = maps.Clone(ps.Caps)
		ps.Set(pg.CapCheckpoint, false, "the test reads the positions itself")
		scope := collectors.Scope{Schemas: []string{"public"}}
		awaitStreaming(t, pdb, sdb)
		pauseReplay(t, sdb)
		t.Cleanup(func() { sdb.Exec(`SELECT pg_wal_replay_resume()`) })

		t.Run("node paused", func(t *testing.T) {
			s0, p0 := standbyPos(t, sdb), insertLSN(t, pdb)
			node := &measure.Node{Label: "standby", Window: window(t, sdb, ss), Scope: scope}
			res, code, err := (&measure.Wrapped{Window: window(t, pdb, ps), Nodes: []*measure.Node{node}, Scope: scope,
				Command: []string{bench, "-n", "-c", "2", "-t", "100", srv.DSN}, Stdout: io.Discard}).Run(context.Background())
			if err != nil || code != 0 {
				t.Fatalf("measure: exit %d, %v", code, err)
			}
			s1, p1 := standbyPos(t, sdb), insertLSN(t, pdb)
			recv, primary := s1.recv-s0.recv, p1-p0
			if s1.replay != s0.replay || recv < 100_000 {
				t.Fatalf("setup: the standby replayed %v and received %v bytes in the window: not a paused standby that received the workload", s1.replay-s0.replay, recv)
			}
			if len(res.Runs) != 2 {
				t.Fatalf("%d runs, want the primary's and the standby's", len(res.Runs))
			}
			sr := &res.Runs[1]
			rc := sr.Database["received_log_bytes"]
			t.Logf("truth: primary wrote %.0f B, standby received %.0f B (receive LSN %.0f behind replay at the start), replayed 0; writeamp: primary log_bytes %v, standby received_log_bytes %v (%s), log_bytes %v (%s), replayed_log_bytes %v (%s)",
				primary, recv, s0.replay-s0.recv, res.Runs[0].Database["log_bytes"].V(), rc.V(), rc.Exactness, sr.Database["log_bytes"].V(), sr.Database["log_bytes"].Exactness,
				sr.Database["replayed_log_bytes"].V(), sr.Database["replayed_log_bytes"].Exactness)
			if !rc.OK() || rc.Exactness != result.Exact || !within(rc.V(), recv, 0.1) {
				t.Errorf("received_log_bytes %v (%s), want the receive LSN's difference %v (±10%%), exact", rc.Value, rc.Exactness, recv)
			}
			noExactZeros(t, sr)
			c := reports.FromResult(res)
			for _, f := range c.Findings {
				if f.Object == "standby" && f.Exactness == result.Exact && f.Value != nil && *f.Value == 0 {
					t.Errorf("finding on the standby, 0 exact: %s", f.Text)
				}
				if f.Object == "cluster" && f.Exactness == result.Exact && !within(*f.Value, primary+recv, 0.1) {
					t.Errorf("cluster finding %v exact (%s), want the primary's %v + the standby's received %v", *f.Value, f.Text, primary, recv)
				}
			}
			if !hasText(c.Findings, "standby did not replay within the window") {
				t.Errorf("no finding says the standby did not replay: %v", texts(c.Findings))
			}
			notes := strings.Join(append(append([]string{}, res.Notes...), sr.Warnings...), "\n")
			if !strings.Contains(notes, "replay was paused") || !strings.Contains(notes, "replay is paused") {
				t.Errorf("no note names the pause:\n%s", notes)
			}
			clusterExact := false
			for _, n := range res.Notes {
				if strings.HasPrefix(n, "cluster log: ") && strings.HasSuffix(n, "(exact)") {
					clusterExact = true
					if !strings.Contains(n, result.FormatBytes(res.Runs[0].Database["log_bytes"].V()+rc.V())) {
						t.Errorf("cluster note %q, want the primary's log and the standby's received bytes summed", n)
					}
				}
			}
			if !clusterExact {
				t.Errorf("no exact cluster log note: %v", res.Notes)
			}
			// On the primary, the standby's replayed figure is not exact either.
			if m := res.Runs[0].Database["replica.wa_paused.log_bytes_replayed"]; m.Exactness == result.Exact {
				t.Errorf("the primary's replica.wa_paused.log_bytes_replayed %v exact while replay was paused", m.Value)
			}
		})

		t.Run("dsn paused", func(t *testing.T) {
			s0 := standbyPos(t, sdb)
			run := wrapped(t, sdb, ss, "public", psqlCmd(t, srv.DSN, `INSERT INTO public.ins SELECT g, g FROM generate_series(1, 500) g`))
			s1 := standbyPos(t, sdb)
			recv := s1.recv - s0.recv
			if s1.replay != s0.replay || recv <= 0 {
				t.Fatalf("setup: the standby replayed %v and received %v bytes", s1.replay-s0.replay, recv)
			}
			rc, li := run.Database["received_log_bytes"], metric(t, run.Index("ins_pkey"), "leaf_inserts")
			t.Logf("truth: received %.0f B, replayed 0, 500 inserts waiting; writeamp: received_log_bytes %v (%s), ins_pkey leaf_inserts %v (%s: %s)",
				recv, rc.V(), rc.Exactness, li.Value, li.Exactness, li.Note)
			if !rc.OK() || rc.Exactness != result.Exact || !within(rc.V(), recv, 0.1) {
				t.Errorf("received_log_bytes %v (%s), want %v (±10%%), exact", rc.Value, rc.Exactness, recv)
			}
			if li.Exactness == result.Exact || !strings.Contains(li.Note, "replay was paused") {
				t.Errorf("ins_pkey leaf_inserts %v (%s, %q): want no exact figure, the pause named", li.Value, li.Exactness, li.Note)
			}
			noExactZeros(t, run)
			fs := findingsOf(run)
			for _, f := range fs {
				if strings.Contains(f.Text, "0 index entries") && f.Exactness == result.Exact {
					t.Errorf("finding: %s", f.Text)
				}
			}
			if !hasText(fs, "the standby did not replay within the window") {
				t.Errorf("no finding says the standby did not replay: %v", texts(fs))
			}
		})

		t.Run("resumed", func(t *testing.T) {
			mustExec(t, sdb, `SELECT pg_wal_replay_resume()`)
			awaitStreaming(t, pdb, sdb)
			p0 := insertLSN(t, pdb)
			node := &measure.Node{Label: "standby", Window: window(t, sdb, ss), Scope: scope}
			res, code, err := (&measure.Wrapped{Window: window(t, pdb, ps), Nodes: []*measure.Node{node}, Scope: scope,
				Command: psqlCmd(t, srv.DSN, `INSERT INTO public.ins SELECT g, g FROM generate_series(501, 800) g`), Stdout: io.Discard}).Run(context.Background())
			if err != nil || code != 0 {
				t.Fatalf("measure: exit %d, %v", code, err)
			}
			truth := insertLSN(t, pdb) - p0
			sr := &res.Runs[1]
			rc, rp := sr.Database["received_log_bytes"], sr.Database["replayed_log_bytes"]
			t.Logf("truth: primary wrote %.0f B; writeamp: standby received %v (%s), replayed %v (%s)", truth, rc.V(), rc.Exactness, rp.V(), rp.Exactness)
			// The primary may log a record (running transactions) after the
			// standby's window has ended.
			for name, m := range map[string]result.Metric{"received_log_bytes": rc, "replayed_log_bytes": rp, "log_bytes": sr.Database["log_bytes"]} {
				if !m.OK() || m.Exactness != result.Exact || m.V() > truth || m.V() < truth-1024 || m.V() != rc.V() {
					t.Errorf("%s %v (%s, %s), want the received bytes, the primary's %v or a record less, exact", name, m.V(), m.Exactness, m.Note, truth)
				}
			}
			if m := metric(t, sr.Index("ins_pkey"), "leaf_inserts"); m.V() != 300 || m.Exactness != result.Exact {
				t.Errorf("ins_pkey leaf inserts %v (%s), want 300 exact", m.V(), m.Exactness)
			}
			for _, w := range append(append([]string{}, sr.Warnings...), res.Notes...) {
				if strings.Contains(w, "did not replay") || strings.Contains(w, "paused") {
					t.Errorf("a resumed standby's window says: %s", w)
				}
			}
		})
	})
}

// pauseReplay pauses replay and waits until it has (14+: the pause state;
// 13 says only that a pause was asked).
func pauseReplay(t *testing.T, sdb *sql.DB) {
	t.Helper()
	mustExec(t, sdb, `SELECT pg_wal_replay_pause()`)
	for i := 0; ; i++ {
		var state string
		q := `SELECT pg_get_wal_replay_pause_state()`
		var v int
		sdb.QueryRow(`SELECT current_setting('server_version_num')::int`).Scan(&v)
		if v < 140000 {
			q = `SELECT CASE WHEN pg_is_wal_replay_paused() THEN 'paused' ELSE 'not paused' END`
		}
		if err := sdb.QueryRow(q).Scan(&state); err != nil {
			t.Fatal(err)
		}
		if state == "paused" {
			return
		}
		if i == 100 {
			t.Fatalf("replay not paused after 10 s (%s)", state)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

type standbyPosition struct{ recv, replay float64 }

func standbyPos(t *testing.T, sdb *sql.DB) standbyPosition {
	t.Helper()
	var p standbyPosition
	if err := sdb.QueryRow(`SELECT pg_wal_lsn_diff(pg_last_wal_receive_lsn(), '0/0'), pg_wal_lsn_diff(pg_last_wal_replay_lsn(), '0/0')`).Scan(&p.recv, &p.replay); err != nil {
		t.Fatal(err)
	}
	return p
}

// noExactZeros: a paused standby that received WAL has no figure of its
// log, records, full-page images, pages or index entries that is 0 and
// exact.
func noExactZeros(t *testing.T, run *result.Run) {
	t.Helper()
	writes := func(name string) bool {
		for _, w := range []string{"log_", "fpi_", "leaf_", "pages_touched", "newpage"} {
			if strings.HasPrefix(name, w) {
				return true
			}
		}
		return false
	}
	check := func(where string, ms map[string]result.Metric) {
		for name, m := range ms {
			if writes(name) && m.Exactness == result.Exact && m.Value != nil && m.V() == 0 {
				t.Errorf("%s %s 0, exact, while the standby received WAL", where, name)
			}
		}
	}
	check("database", run.Database)
	for _, o := range run.Tables {
		check("table "+o.Name, o.Metrics)
	}
	for _, o := range run.Indexes {
		check("index "+o.Name, o.Metrics)
	}
}

func within(got, want, tol float64) bool {
	return want > 0 && got >= want*(1-tol) && got <= want*(1+tol)
}

func hasText(fs []result.Finding, s string) bool {
	for _, f := range fs {
		if strings.Contains(f.Text, s) {
			return true
		}
	}
	return false
}

func texts(fs []result.Finding) string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%q (%s)", f.Text, f.Exactness))
	}
	return strings.Join(out, "; ")
}
