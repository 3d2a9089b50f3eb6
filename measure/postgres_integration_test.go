package measure_test

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	_ "github.com/writeamp/writeamp/collectors/postgres"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/internal/testing/testenv"
	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/result"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

const pgEnv = "WRITEAMP_TEST_PG_DSN"

func openPG(t *testing.T, dsn string) (*sql.DB, dialects.Server) {
	t.Helper()
	ctx := context.Background()
	db, err := pg.Dialect{}.Open(ctx, dsn)
	if err != nil {
		if testenv.CI() {
			t.Fatalf("PostgreSQL unreachable under CI=true: %v", err)
		}
		t.Skipf("PostgreSQL unreachable: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	s, err := pg.Dialect{}.Probe(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	return db, s
}

func smallParams() refreshtoken.Params {
	p := refreshtoken.DefaultParams()
	p.Logins, p.RefreshesPerLogin = 200, 5
	return p
}

func metric(t *testing.T, o *result.Object, name string) result.Metric {
	t.Helper()
	if o == nil {
		t.Fatalf("object missing")
	}
	m, ok := o.Metrics[name]
	if !ok {
		t.Fatalf("%s has no metric %s (has %v)", o.Name, name, keys(o.Metrics))
	}
	return m
}

func keys(m map[string]result.Metric) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func schemasLike(t *testing.T, db *sql.DB, pattern string) []string {
	rows, err := db.Query(`SELECT nspname FROM pg_namespace WHERE nspname LIKE $1`, pattern)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		rows.Scan(&n)
		out = append(out, n)
	}
	return out
}

func hasWalinspect(t *testing.T, db *sql.DB) bool {
	var ok bool
	if err := db.QueryRow(`SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_walinspect')`).Scan(&ok); err != nil {
		t.Fatal(err)
	}
	return ok
}

// TestRefreshTokenOnPostgres runs both variants and checks every headline
// number against a truth computed independently: the operations the plan
// issues, and the rule that a non-HOT update adds an entry to every index.
func TestRefreshTokenOnPostgres(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, pgEnv)
	db, s := openPG(t, dsn)
	extBefore := hasWalinspect(t, db)
	p := smallParams()
	w := refreshtoken.New(p)
	exp := &measure.Experiment{Window: window(t, db, s), Workload: w, Variants: refreshtoken.Variants, Concurrency: smallConcurrency}
	res, err := exp.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 2 {
		t.Fatalf("%d runs", len(res.Runs))
	}
	plan := refreshtoken.NewPlan(p.Logins, p.RefreshesPerLogin, 2000, 200, p.LogoutPercent, p.Seed)
	logins, refreshes, logouts := float64(p.Logins), float64(p.Logins*p.RefreshesPerLogin), float64(plan.Logouts())
	// Each session's first refresh lands in its login's second: Keycloak
	// queues no change for it, so it updates nothing.
	updates := float64(p.Logins * (p.RefreshesPerLogin - 1))
	for _, run := range res.Runs {
		t.Run(run.Variant, func(t *testing.T) {
			if run.Operations["logins"] != int64(logins) || run.Operations["refreshes"] != int64(refreshes) || run.Operations["logouts"] != int64(logouts) {
				t.Fatalf("operations %v", run.Operations)
			}
			if len(run.Errors) > 0 {
				t.Fatalf("errors %v", run.Errors)
			}
			for _, m := range run.Missing {
				if m.Collector == "pg_wal" {
					t.Fatalf("the WAL decoder did not read the window: %s", m.Reason)
				}
			}
			us, cs := run.Table("offline_user_session"), run.Table("offline_client_session")
			for _, tc := range []struct {
				o      *result.Object
				metric string
				want   float64
			}{{us, "rows_inserted", logins}, {us, "rows_updated", updates}, {us, "rows_deleted", logouts},
				{cs, "rows_inserted", logins}, {cs, "rows_updated", updates}, {cs, "rows_deleted", logouts}} {
				if m := metric(t, tc.o, tc.metric); m.V() != tc.want || m.Exactness != result.Exact {
					t.Errorf("%s.%s = %v (%s), want %v", tc.o.Name, tc.metric, m.V(), m.Exactness, tc.want)
				}
			}
			hot := metric(t, us, "hot_updates").V()
			if run.Variant == "baseline" && hot != 0 {
				t.Errorf("baseline: %v HOT updates; an update of an indexed column can never be HOT", hot)
			}
			if run.Variant == "coarse" && hot < 0.9*updates {
				t.Errorf("coarse: only %v of %v updates HOT", hot, updates)
			}
			// Coarse changes no key column on refresh, so every non-HOT update
			// must be one whose new version went to another page.
			np := metric(t, us, "newpage_updates").V()
			if run.Variant == "coarse" && np != updates-hot {
				t.Errorf("coarse: %v page-move updates, want all %v non-HOT ones", np, updates-hot)
			}
			if run.Variant == "baseline" && np >= updates {
				t.Errorf("baseline: %v page-move updates of %v; most move an index key on the same page", np, updates)
			}
			// WAL-counted leaf inserts must equal the table-counter rule for
			// every index (all rows match the partial indexes' predicates).
			for _, ix := range run.Indexes {
				if ix.Info["toast"] != "" {
					continue // a TOAST index gets an entry per chunk written, whatever the rows
				}
				table := run.Table(ix.Table)
				want := metric(t, table, "rows_inserted").V() + metric(t, table, "rows_updated").V() - metric(t, table, "hot_updates").V()
				li := metric(t, &ix, "leaf_inserts")
				if li.Exactness != result.Exact || !strings.Contains(li.Source, "WAL decoder") {
					t.Errorf("%s leaf_inserts is %s from %q, want exact from writeamp's WAL decoder", ix.Name, li.Exactness, li.Source)
				}
				if strings.Contains(ix.Info["definition"], "IS NOT NULL") {
					want = 0 // the filtered broker index: every BROKER_SESSION_ID is NULL
				}
				if li.V() != want {
					t.Errorf("%s leaf_inserts %v != inserts + non-HOT updates %v", ix.Name, li.V(), want)
				}
			}
			// Every lookup is by key: no index scan may read more than a few
			// entries. A plan frozen while the tables were empty once read
			// every client session per refresh and pruned pages production
			// never visits.
			for _, ix := range run.Indexes {
				sc, rd := ix.Metrics["scans"], ix.Metrics["tuples_read"]
				if sc.OK() && sc.V() > 0 && rd.V()/sc.V() > 20 {
					t.Errorf("%s: %.0f entries read per scan: the workload's lookups are not using a key", ix.Name, rd.V()/sc.V())
				}
			}
			exp := run.Index("idx_user_session_expiration_last_refresh")
			li := metric(t, exp, "leaf_inserts").V()
			if run.Variant == "baseline" && li != logins+updates {
				t.Errorf("baseline expiration index: %v leaf inserts, want logins+updates %v", li, logins+updates)
			}
			if run.Variant == "coarse" && li != logins+(updates-hot) {
				t.Errorf("coarse expiration index: %v leaf inserts, want logins + non-HOT %v", li, logins+updates-hot)
			}
			if run.Variant == "coarse" {
				if run.Index("idx_offline_css_by_user_session_and_offline") != nil {
					t.Error("coarse must not have the index 26.8 dropped")
				}
				if b := metric(t, run.Index("idx_offline_uss_by_broker_session_id"), "leaf_inserts").V(); b != 0 {
					t.Errorf("filtered broker index got %v entries; BROKER_SESSION_ID is NULL", b)
				}
			}
			// Three independent WAL byte counts. pg_stat_wal and the sum of
			// walinspect's record lengths count the same bytes; the LSN moves
			// further by the page headers (24 B per 8 KiB page, more at segment
			// starts) and by aligning each record to 8 bytes.
			lsn, stat, recs := run.Database["log_bytes"], run.Database["log_bytes_stat"], run.Database["log_records"]
			in := run.Database["log_bytes_in_scope"]
			sum := in.V() + run.Database["log_bytes_other_objects"].V() + run.Database["log_bytes_other"].V()
			if !stat.OK() || math.Abs(stat.V()-sum) > 0.001*sum {
				t.Errorf("pg_stat_wal.wal_bytes %v vs walinspect record lengths %v differ by more than 0.1%%", stat.V(), sum)
			}
			slack := lsn.V() - stat.V()
			maxSlack := 40*math.Ceil(lsn.V()/8192) + 7*recs.V()
			if !lsn.OK() || slack < 0 || slack > maxSlack {
				t.Errorf("LSN diff %v - pg_stat_wal %v = %v, want within [0, %v] (page headers + alignment)", lsn.V(), stat.V(), slack, maxSlack)
			}
			if !in.OK() || in.V() <= 0 || in.V() > lsn.V() {
				t.Errorf("log_bytes_in_scope %v not within (0, %v]", in.V(), lsn.V())
			}
			if run.PerOperation["refresh"]["log_bytes"] != lsn.V()/refreshes {
				t.Errorf("per refresh log bytes %v", run.PerOperation["refresh"]["log_bytes"])
			}
			if l := run.LatencyMS["refresh"]; l.Count != int64(refreshes) || l.P50 <= 0 || l.P99 < l.P50 {
				t.Errorf("refresh latency %+v", l)
			}
			operationCostsHold(t, run, in.V(), map[string]float64{"login": logins, "refresh": updates, "logout": logouts})
		})
	}
	if left := schemasLike(t, db, "writeamp_rt_"+w.Owned.RunID+"%"); len(left) != 0 {
		t.Errorf("schemas left behind: %v", left)
	}
	if hasWalinspect(t, db) != extBefore {
		t.Errorf("pg_walinspect installed before=%v, after=%v: the server must be left as found", extBefore, !extBefore)
	}
}

// TestPlainRoleGetsDerivedNumbersAndTheGrant runs as a role that may create
// a schema but neither read the WAL nor CHECKPOINT.
func TestPlainRoleGetsDerivedNumbersAndTheGrant(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, pgEnv)
	admin, s := openPG(t, dsn)
	role := fmt.Sprintf("writeamp_test_plain_%d", os.Getpid())
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, admin, `CREATE ROLE `+role+` LOGIN`)
	mustExec(t, admin, `GRANT CREATE ON DATABASE `+pg.QuoteIdent(s.Database)+` TO `+role)
	t.Cleanup(func() {
		admin.Exec(`REVOKE CREATE ON DATABASE ` + pg.QuoteIdent(s.Database) + ` FROM ` + role)
		admin.Exec(`DROP OWNED BY ` + role)
		admin.Exec(`DROP ROLE ` + role)
	})
	plain := fmt.Sprintf("host=%s port=%d user=%s dbname=%s sslmode=disable", cfg.Host, cfg.Port, role, cfg.Database)
	db, ps := openPG(t, plain)
	if ps.Has(pg.CapWalinspect) || ps.Has(pg.CapCheckpoint) {
		t.Fatalf("a plain role must not have pg_walinspect or checkpoint: %v", ps.Caps)
	}
	p := smallParams()
	p.Logins, p.RefreshesPerLogin = 50, 2
	res, err := (&measure.Experiment{Window: window(t, db, ps), Workload: refreshtoken.New(p), Variants: []string{"baseline"}, Concurrency: smallConcurrency}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	run := res.Runs[0]
	var fix string
	for _, m := range run.Missing {
		if m.Collector == "pg_wal" {
			fix = m.Reason + " " + m.Fix
		}
	}
	if !strings.Contains(fix, "GRANT") || !strings.Contains(fix, role) {
		t.Errorf("pg_wal missing entry must carry the GRANT for %s: %q", role, fix)
	}
	if !strings.Contains(strings.Join(run.Warnings, "\n"), "CHECKPOINT") {
		t.Errorf("no warning about the missing CHECKPOINT privilege: %v", run.Warnings)
	}
	us := run.Table("offline_user_session")
	for _, ix := range run.Indexes {
		if ix.Info["toast"] != "" {
			continue // a TOAST index's entries follow chunks, not rows: not derived from row counters
		}
		li := metric(t, &ix, "leaf_inserts")
		if ix.Info["partial"] == "true" {
			if li.OK() {
				t.Errorf("partial index %s: leaf inserts cannot be derived, got %v", ix.Name, li.V())
			}
			continue
		}
		if li.Exactness != result.Derived {
			t.Errorf("%s: leaf_inserts %s, want derived", ix.Name, li.Exactness)
		}
		if ix.Table == "offline_user_session" {
			want := metric(t, us, "rows_inserted").V() + metric(t, us, "rows_updated").V() - metric(t, us, "hot_updates").V()
			// 50 inserts + 50 non-HOT updates: each session's first refresh
			// shares its login's second and updates nothing.
			if li.V() != want || want != 100 {
				t.Errorf("%s: derived %v, want %v (= 50 inserts + 50 non-HOT updates)", ix.Name, li.V(), want)
			}
		}
	}
	if m := run.Database["log_bytes"]; !m.OK() || m.V() <= 0 {
		t.Errorf("WAL bytes need no privilege: %+v", m)
	}
}

func mustExec(t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// TestSnapshotWritesNoWAL: the observer only reads. An idle server can still
// write a running-xacts record now and then, so one clean attempt of a few
// suffices.
func TestSnapshotWritesNoWAL(t *testing.T) {
	t.Parallel()
	dsn := testenv.DSN(t, pgEnv)
	db, s := openPG(t, dsn)
	set := pgSet(t)
	for attempt := 0; attempt < 5; attempt++ {
		var a, b string
		db.QueryRow(`SELECT pg_current_wal_insert_lsn()::text`).Scan(&a)
		if _, err := set.Take(context.Background(), db, s, collectorsScope()); err != nil {
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

// operationCostsHold checks the run's log split by operation: the operations
// and the unattributed records sum to the window's in-scope log bytes
// exactly; each operation had one transaction per operation that wrote
// (xacts); the operations' leaf inserts per index sum to the index's own
// count; and each login put one entry into every index it reaches.
func operationCostsHold(t *testing.T, run result.Run, inScope float64, xacts map[string]float64) {
	t.Helper()
	oc := run.OperationCosts
	if oc == nil {
		t.Fatal("no operation_costs")
	}
	all := oc.Operations
	if oc.Unattributed != nil {
		all = append(all, *oc.Unattributed)
	}
	var sum float64
	leaf := map[string]float64{}
	for _, c := range all {
		sum += c.Metrics["log_bytes"].V()
		var objs float64
		for _, o := range c.Objects {
			objs += o.Metrics["log_bytes"].V()
			leaf[o.Name] += o.Metrics["leaf_inserts"].V()
		}
		if objs != c.Metrics["log_bytes"].V() {
			t.Errorf("%q: objects sum to %v, the operation is %v", c.Operation, objs, c.Metrics["log_bytes"].V())
		}
		if want, ok := xacts[c.Operation]; ok && float64(c.Transactions) != want {
			t.Errorf("%s: %d transactions in the log, want %v (one per operation that wrote)", c.Operation, c.Transactions, want)
		}
	}
	if sum != inScope || oc.LogBytes.V() != inScope || oc.LogBytes.Exactness != result.Exact {
		t.Errorf("operations sum to %v (%v, %s), in-scope log is %v", sum, oc.LogBytes.V(), oc.LogBytes.Exactness, inScope)
	}
	if len(oc.Operations) != len(xacts) {
		t.Errorf("%d operations in the split, want %d", len(oc.Operations), len(xacts))
	}
	for _, ix := range run.Indexes {
		if li := metric(t, &ix, "leaf_inserts").V(); leaf[ix.Schema+"."+ix.Name] != li {
			t.Errorf("%s: the operations' leaf inserts sum to %v, the index has %v", ix.Name, leaf[ix.Schema+"."+ix.Name], li)
		}
	}
	for _, c := range oc.Operations {
		if c.Operation != "login" {
			continue
		}
		for _, ix := range run.Indexes {
			if ix.Info["toast"] != "" {
				continue // nothing the workload writes is long enough to be toasted
			}
			want := xacts["login"]
			if strings.Contains(ix.Info["definition"], "IS NOT NULL") {
				want = 0
			}
			var got float64
			for _, o := range c.Objects {
				if o.Name == ix.Schema+"."+ix.Name {
					got = o.Metrics["leaf_inserts"].V()
				}
			}
			if got != want {
				t.Errorf("login: %v entries in %s, want one per login (%v)", got, ix.Name, want)
			}
		}
	}
	t.Logf("%s: %d operations + unattributed = %.0f B = log_bytes_in_scope %.0f B; a refresh's own log %.1f B",
		run.Variant, len(oc.Operations), sum, inScope, run.PerOperation["refresh"]["operation_log_bytes"])
	if run.PerOperation["refresh"]["operation_log_bytes"] <= 0 {
		t.Errorf("per_operation.refresh has no operation_log_bytes: %v", run.PerOperation["refresh"])
	}
}
