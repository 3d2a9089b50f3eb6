package measure_test

import (
	"context"
	"database/sql"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/internal/testing/pgmatrix"
	"github.com/writeamp/writeamp/internal/testing/testenv"
	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/result"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

// TestEveryPostgresMajor holds every supported major version to the truths
// a test can compute on its own: the statements issued, PostgreSQL's rules
// for which index gets an entry, and the pages an index grew by. Each major
// runs on a fresh throwaway server, one after the other.
func TestEveryPostgresMajor(t *testing.T) {
	t.Parallel()
	pgmatrix.EachParallel(t, func(t *testing.T, srv *pgmatrix.Server) {
		db, s := openPG(t, srv.DSN)
		if got := s.VersionNum / 10000; got != srv.Major {
			t.Fatalf("server reports %s, want major %d", s.Version, srv.Major)
		}
		// First, while the cluster is fresh: 13/14 create a database's
		// statistics on first use, which once read as "2 counters were reset".
		t.Run("fresh cluster", func(t *testing.T) {
			run := wrapped(t, db, s, "public", psqlCmd(t, srv.DSN, `SELECT pg_sleep(1)`))
			for _, w := range run.Warnings {
				if strings.Contains(w, "reset") {
					t.Errorf("a fresh cluster is not a reset: %s", w)
				}
			}
		})
		t.Run("refresh-token A/B", func(t *testing.T) { matrixRefreshAB(t, db, s) })
		t.Run("partial and expression index", func(t *testing.T) { matrixPartialExpression(t, srv, db, s) })
		t.Run("leaf page splits", func(t *testing.T) { matrixSplits(t, srv, db, s) })
		t.Run("observer writes no WAL", func(t *testing.T) { matrixObserverWritesNoWAL(t, db, s) })
		t.Run("wait sampler writes no WAL", func(t *testing.T) { matrixSamplerWritesNoWAL(t, db, s) })
		// 14 computes the horizon per database as 15-18 do and stands for
		// them; on those the subtest would only repeat 14's.
		if s.VersionNum < 150000 {
			t.Run("wait sampler and the pruning horizon", func(t *testing.T) { matrixSamplerHorizon(t, srv.DSN, db, s) })
		}
		t.Run("the window sees a row lock wait", func(t *testing.T) { pgLockWait(t, db, s) })
		t.Run("interval sampler writes no WAL", func(t *testing.T) { timelineWritesNoWAL(t, db, s) })
		t.Run("reset inside the window", func(t *testing.T) { matrixResetInWindow(t, db, s) })
		t.Run("window across checkpoints", func(t *testing.T) { matrixLongWindow(t, srv, db, s) })
		t.Run("WAL read over the connection", func(t *testing.T) { matrixRemoteWAL(t, srv, db) })
	})
}

// wantMissing is which collectors a major cannot give (and only those): the
// superuser reads the WAL on every major (writeamp decodes the segments).
func wantMissing(major int) map[string]bool {
	m := map[string]bool{}
	if major < 14 {
		m["pg_stat_wal"] = true
		m["pg_stat_replication_slots"] = true
	}
	if major < 16 {
		m["pg_stat_io"] = true
	}
	// The throwaway servers do not preload it (statements_integration_test.go does).
	m["pg_stat_statements"] = true
	return m
}

func checkMissing(t *testing.T, run *result.Run, major int) {
	t.Helper()
	want := wantMissing(major)
	for _, m := range run.Missing {
		if !want[m.Collector] {
			t.Errorf("collector %s missing on PostgreSQL %d: %s", m.Collector, major, m.Reason)
		}
		delete(want, m.Collector)
	}
	for c := range want {
		t.Errorf("collector %s should be missing on PostgreSQL %d (with its reason)", c, major)
	}
}

func matrixRefreshAB(t *testing.T, db *sql.DB, s dialects.Server) {
	major := s.VersionNum / 10000
	p := refreshtoken.DefaultParams()
	p.Logins, p.RefreshesPerLogin = 60, 5
	// The wait samplers watch this window as they do every run's: coarse
	// stays all HOT with them on (PostgreSQL's samples from another
	// database, so no sample's snapshot holds back pruning).
	w := window(t, db, s)
	w.Observers = append(w.Observers, &measure.Waits{})
	res, err := (&measure.Experiment{Window: w, Workload: refreshtoken.New(p), Variants: refreshtoken.Variants}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range res.Runs {
		if len(run.Writes) == 0 {
			t.Fatalf("%s: the run carries no driver row counts", run.Variant)
		}
		// Rows: the server's counters equal what the driver saw each
		// statement change, per table and kind.
		truth := map[string]float64{}
		for _, w := range run.Writes {
			truth[w.Table+"/"+map[string]string{"insert": "rows_inserted", "update": "rows_updated", "delete": "rows_deleted"}[w.Kind]] += float64(w.Rows)
		}
		for k, n := range truth {
			table, m, _ := strings.Cut(k, "/")
			got := metric(t, run.Table(table), m)
			if got.V() != n || got.Exactness != result.Exact {
				t.Errorf("%s: %s.%s = %v (%s), the driver counted %v", run.Variant, table, m, got.V(), got.Exactness, n)
			}
		}
		if n := run.Database["wait_samples"]; n.V() < 1 || n.Exactness != result.Approx {
			t.Errorf("%s: the wait sampler did not watch the window: %+v (missing %v)", run.Variant, n, run.Missing)
		}
		us := run.Table("offline_user_session")
		upd, hot := metric(t, us, "rows_updated").V(), metric(t, us, "hot_updates").V()
		if run.Variant == "baseline" && (hot != 0 || upd == 0) {
			t.Errorf("baseline: %v of %v updates HOT; an update of an indexed column can never be HOT", hot, upd)
		}
		// PostgreSQL 13 computes the pruning horizon over the whole cluster,
		// so the wait sampler's snapshot, though taken in another database,
		// can keep a page's dead versions and push updates to another page
		// (issue 27, item 4: 239 of 240 in a CI run; a later CI run moved 7
		// of baseline's offline_client_session updates: one held prune on a
		// full page moves every row updated until the next prune). Those are
		// newpage updates, which the report explains; 14+ prune per
		// database. horizonTolerance bounds them so that a sampler holding
		// its snapshot for long still fails.
		newpage := 0.0
		if m, ok := us.Metrics["newpage_updates"]; ok && m.OK() {
			newpage = m.V()
		}
		// On 14+ an autoanalyze in the measured database holds pruning back
		// the same way: a page move is page room, never the indexes.
		if run.Variant == "coarse" && hot != upd && !(upd-hot <= horizonTolerance(upd) && upd-hot == newpage) {
			t.Errorf("coarse at one worker: %v of %v updates HOT (%v moved to another page), want all", hot, upd, newpage)
		}
		// Every index gets an entry per insert and per non-HOT update of its
		// table, if the new row version matches its predicate.
		for _, ix := range run.Indexes {
			if ix.Info["toast"] != "" {
				continue // a TOAST index gets an entry per chunk written, whatever the rows
			}
			tb := run.Table(ix.Table)
			want := metric(t, tb, "rows_inserted").V() + metric(t, tb, "rows_updated").V() - metric(t, tb, "hot_updates").V()
			if strings.Contains(ix.Info["definition"], "IS NOT NULL") {
				want = 0 // the filtered broker index: BROKER_SESSION_ID is NULL
			}
			li := metric(t, &ix, "leaf_inserts")
			if li.Exactness != result.Exact || li.V() != want {
				t.Errorf("%s %s: leaf_inserts %v (%s), want exactly %v", run.Variant, ix.Name, li.V(), li.Exactness, want)
			}
			if sp := metric(t, &ix, "leaf_page_splits"); sp.Exactness != result.Exact {
				t.Errorf("%s %s: leaf_page_splits %s", run.Variant, ix.Name, sp.Exactness)
			}
			if pt := metric(t, &ix, "pages_touched"); pt.Exactness != result.Exact || (want > 0 && pt.V() < 1) {
				t.Errorf("%s %s: pages_touched %v (%s) for %v entries", run.Variant, ix.Name, pt.V(), pt.Exactness, want)
			}
		}
		checkMissing(t, &run, major)
		// The log split by operation, on the run above: each of 13-18's
		// decoded WAL must sum to the in-scope log (a matrix of its own would
		// double the subtest's time for the same workload).
		operationCostsHold(t, run, run.Database["log_bytes_in_scope"].V(), map[string]float64{
			"login": float64(run.Operations["logins"]), "refresh": upd, "logout": float64(run.Operations["logouts"])})
		for _, w := range run.Warnings {
			// The one update 13's horizon moved (allowed above for coarse; in
			// either variant it can hit a table whose updates are otherwise
			// all HOT, like baseline's offline_client_session) is explained by
			// the report in a warning that says other transactions still
			// needed the page's dead versions: that one is the truth.
			if major == 13 && strings.Contains(w, "moved the row to another page") && horizonMoved(&run, w) {
				continue
			}
			if strings.Contains(w, "reset") || strings.Contains(w, "approx") || strings.Contains(w, "still") {
				t.Errorf("%s: %s", run.Variant, w)
			}
		}
	}
}

// horizonTolerance is how many of n updates PostgreSQL 13's cluster-wide
// horizon may move to another page in the matrix's A/B: 5%, or one.
func horizonTolerance(n float64) float64 { return max(1, float64(int(n/20))) }

// horizonMoved: the table warning w is about ("schema.table: …") had, as
// its only non-HOT updates, the few that moved to another page (at most
// horizonTolerance of its updates).
func horizonMoved(run *result.Run, w string) bool {
	obj, _, ok := strings.Cut(w, ": ")
	if !ok {
		return false
	}
	tb := run.Table(obj[strings.LastIndex(obj, ".")+1:])
	if tb == nil {
		return false
	}
	upd, hot, moved := tb.Metrics["rows_updated"], tb.Metrics["hot_updates"], tb.Metrics["newpage_updates"]
	n := upd.V() - hot.V()
	return upd.OK() && hot.OK() && moved.OK() && n > 0 && moved.V() == n && n <= horizonTolerance(upd.V())
}

// psql runs SQL as a wrapped command would: its own sessions, outside writeamp.
func psqlCmd(t *testing.T, dsn string, sqls ...string) []string {
	t.Helper()
	if _, err := exec.LookPath("psql"); err != nil {
		if testenv.CI() {
			t.Fatalf("psql not installed under CI=true: %v", err)
		}
		t.Skipf("psql not installed: %v", err)
	}
	args := []string{"psql", dsn, "-X", "-q", "-v", "ON_ERROR_STOP=1"}
	for _, q := range sqls {
		args = append(args, "-c", q)
	}
	return args
}

func wrapped(t *testing.T, db *sql.DB, s dialects.Server, schema string, cmd []string) *result.Run {
	t.Helper()
	res, code, err := (&measure.Wrapped{Window: window(t, db, s), Scope: collectors.Scope{Schemas: []string{schema}}, Command: cmd, Stdout: io.Discard}).Run(context.Background())
	if err != nil || code != 0 {
		t.Fatalf("measure: exit %d, %v", code, err)
	}
	return &res.Runs[0]
}

// A partial index gets an entry only for new row versions matching its
// predicate; an expression index's column change makes the update non-HOT.
func matrixPartialExpression(t *testing.T, srv *pgmatrix.Server, db *sql.DB, s dialects.Server) {
	major := s.VersionNum / 10000
	mustExec(t, db, `CREATE SCHEMA mx`)
	t.Cleanup(func() { db.Exec(`DROP SCHEMA mx CASCADE`) })
	mustExec(t, db, `CREATE TABLE mx.m (id int PRIMARY KEY, a int, b text, flag bool, pad text) WITH (fillfactor = 50, autovacuum_enabled = false)`)
	mustExec(t, db, `CREATE INDEX m_part ON mx.m (a) WHERE flag`)
	mustExec(t, db, `CREATE INDEX m_expr ON mx.m (lower(b))`)
	run := wrapped(t, db, s, "mx", psqlCmd(t, srv.DSN,
		`INSERT INTO mx.m SELECT g, g, 'B' || g, g % 4 = 0, NULL FROM generate_series(1, 200) g`,
		`UPDATE mx.m SET pad = 'x' WHERE id <= 100`,
		`UPDATE mx.m SET b = b || 'z' WHERE id > 100 AND id <= 160`))
	m := run.Table("m")
	if ins, upd, hot := metric(t, m, "rows_inserted").V(), metric(t, m, "rows_updated").V(), metric(t, m, "hot_updates").V(); ins != 200 || upd != 160 || hot != 100 {
		t.Fatalf("rows inserted %v, updated %v, HOT %v; want 200, 160, 100", ins, upd, hot)
	}
	// 200 inserts + 60 non-HOT updates; the partial index: the 50 flagged
	// rows inserted and the 15 flagged among ids 101..160.
	want := map[string]float64{"m_pkey": 260, "m_expr": 260, "m_part": 65}
	for name, n := range want {
		if li := metric(t, run.Index(name), "leaf_inserts"); li.Exactness != result.Exact || li.V() != n {
			t.Errorf("%s: %v (%s), want exactly %v", name, li.V(), li.Exactness, n)
		}
	}
	checkMissing(t, run, major)
}

// Leaf page splits: an index grown by random inserts, its new leaf pages
// counted by pageinspect, against the splits writeamp read from the WAL.
func matrixSplits(t *testing.T, srv *pgmatrix.Server, db *sql.DB, s dialects.Server) {
	mustExec(t, db, `CREATE EXTENSION IF NOT EXISTS pageinspect`)
	mustExec(t, db, `CREATE SCHEMA sx`)
	t.Cleanup(func() { db.Exec(`DROP SCHEMA sx CASCADE`); db.Exec(`DROP EXTENSION IF EXISTS pageinspect`) })
	mustExec(t, db, `CREATE TABLE sx.s (id int, k int) WITH (autovacuum_enabled = false)`)
	mustExec(t, db, `CREATE INDEX s_k ON sx.s (k)`)
	mustExec(t, db, `INSERT INTO sx.s SELECT g, (g * 7919) % 100003 FROM generate_series(1, 20000) g`)
	leafPages := func() float64 {
		var n float64
		if err := db.QueryRow(`SELECT count(*) FROM generate_series(1, (pg_relation_size('sx.s_k') / 8192)::int - 1) b,
			LATERAL bt_page_stats('sx.s_k', b) WHERE type = 'l'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := leafPages()
	run := wrapped(t, db, s, "sx", psqlCmd(t, srv.DSN, `INSERT INTO sx.s SELECT g, (g::bigint * 104729) % 100019 FROM generate_series(20001, 70000) g`))
	grown := leafPages() - before
	if grown < 50 {
		t.Fatalf("the index grew by only %v leaf pages: not a split test", grown)
	}
	li, sp := metric(t, run.Index("s_k"), "leaf_inserts"), run.Index("s_k").Metrics["leaf_page_splits"]
	if sp.Exactness != result.Exact || sp.V() != grown {
		t.Errorf("leaf_page_splits %v (%s); pageinspect counts %v new leaf pages", sp.V(), sp.Exactness, grown)
	}
	if li.V() != 50000 || li.Exactness != result.Exact {
		t.Errorf("leaf_inserts %v (%s), want exactly 50000 (split records carry the inserted tuple)", li.V(), li.Exactness)
	}
}

func matrixObserverWritesNoWAL(t *testing.T, db *sql.DB, s dialects.Server) {
	set := pgSet(t)
	for attempt := 0; attempt < 5; attempt++ {
		var a, b string
		db.QueryRow(`SELECT pg_current_wal_insert_lsn()::text`).Scan(&a)
		if _, err := set.Take(context.Background(), db, s, collectors.Scope{}); err != nil {
			t.Fatal(err)
		}
		db.QueryRow(`SELECT pg_current_wal_insert_lsn()::text`).Scan(&b)
		if a == b {
			return
		}
		time.Sleep(300 * time.Millisecond)
	}
	t.Error("the WAL insert position moved across every snapshot attempt")
}

// publish makes a session's counts visible as a workload's would be.
func publish(t *testing.T, db *sql.DB, s dialects.Server, sqls ...string) {
	t.Helper()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range sqls {
		if _, err := conn.ExecContext(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	if err := (pg.Dialect{}).EndSession(context.Background(), conn, s); err != nil {
		t.Fatal(err)
	}
}

// waitInserted waits until the table's insert counter reads n (13/14 deliver
// counts asynchronously).
func waitInserted(t *testing.T, db *sql.DB, table string, n int64) {
	t.Helper()
	var got int64
	for i := 0; i < 100; i++ {
		db.QueryRow(`SELECT n_tup_ins FROM pg_stat_user_tables WHERE relname = $1`, table).Scan(&got)
		if got == n {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s n_tup_ins stayed at %d, want %d", table, got, n)
}
