package reports

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/result"
)

// The sweep fixtures are real `run --logins 300 --concurrency 1,8 --format
// json` results on this machine's PostgreSQL 15 and MariaDB 10.11. Figures
// the main branch does not measure yet (the wait sampler's wait_share.*, the
// --vacuum figures) are set by the tests below, under the names their
// collectors write, to exercise the rules.
func sweep(t *testing.T, name string) *result.Result {
	t.Helper()
	r, err := result.Read(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func claimOf(t *testing.T, r *result.Result, id string) result.Claim {
	t.Helper()
	for _, cl := range FromResult(r).Claims {
		if cl.ID == id {
			return cl
		}
	}
	t.Fatalf("no claim %q", id)
	return result.Claim{}
}

func hasClaim(r *result.Result, id string) bool {
	for _, cl := range FromResult(r).Claims {
		if cl.ID == id {
			return true
		}
	}
	return false
}

func runOf(r *result.Result, label string) *result.Run {
	for i := range r.Runs {
		if r.Runs[i].Label == label {
			return &r.Runs[i]
		}
	}
	panic("no run " + label)
}

func set(ms map[string]result.Metric, name string, v float64, e result.Exactness) {
	ms[name] = result.New(v, e, "test: "+name)
}

// shares puts a sampler's figures on a run, as collectors.Shares writes them.
func shares(run *result.Run, samples float64, w map[string]float64) {
	set(run.Database, "wait_samples", samples, result.Approx)
	for k, v := range w {
		set(run.Database, "wait_share."+k, v, result.Approx)
	}
}

func wantVerdict(t *testing.T, cl result.Claim, verdict, why string) {
	t.Helper()
	if cl.Verdict != verdict || !strings.Contains(cl.Why, why) || cl.Rule == "" || cl.Measured == "" {
		t.Errorf("%s: verdict %q (%q), want %q (%q); measured %q, rule %q", cl.ID, cl.Verdict, cl.Why, verdict, why, cl.Measured, cl.Rule)
	}
}

func TestClaimsOnPostgresSweep(t *testing.T) {
	t.Parallel()
	r := sweep(t, "claims_pg15_sweep")
	li := claimOf(t, r, "reposition.leaf_inserts")
	wantVerdict(t, li, result.Held, "")
	if *li.Before != 1 || *li.After != 0.1 || li.Exactness != result.Exact || li.From != "baseline c=1" || li.To != "coarse c=1" ||
		!strings.Contains(li.Measured, "10.00 → 1.00 per login") {
		t.Errorf("leaf inserts: %+v", li)
	}
	wantVerdict(t, claimOf(t, r, "reposition.log_bytes"), result.Held, "")
	hot := claimOf(t, r, "hot")
	wantVerdict(t, hot, result.Held, "")
	if *hot.Before != 0 || *hot.After != 1 || hot.Unit != "ratio" {
		t.Errorf("hot: %+v", hot)
	}
	ws := claimOf(t, r, "working_set.index")
	wantVerdict(t, ws, result.Held, "")
	if *ws.Before != 60 || *ws.After != 9 || ws.Unit != "total" || !strings.Contains(ws.Measured, "60 → 9 pages") {
		t.Errorf("pages touched are compared as totals: %+v", ws)
	}
	// no full-page image in either window: nothing to compare
	wantVerdict(t, claimOf(t, r, "page_writes"), result.NotMeasured, "no full-page image")
	wantVerdict(t, claimOf(t, r, "contention"), result.NotMeasured, "no wait_share figures")
	wantVerdict(t, claimOf(t, r, "vacuum"), result.NotMeasured, "--vacuum not given")
	if hasClaim(r, "change_buffer") {
		t.Error("the InnoDB change buffer claim does not apply to PostgreSQL")
	}
}

func TestClaimRulesDidNotHold(t *testing.T) {
	t.Parallel()
	r := sweep(t, "claims_pg15_sweep")
	// the same entries in both: no change, so the claim did not hold
	co := runOf(r, "coarse c=1")
	ix := co.Index(expirationIndex)
	ix.Metrics["leaf_inserts"] = runOf(r, "baseline c=1").Index(expirationIndex).Metrics["leaf_inserts"]
	wantVerdict(t, claimOf(t, r, "reposition.leaf_inserts"), result.NotHeld, "")
	// HOT rises, but below the claimed 99%
	set(co.Table(userSessions).Metrics, "hot_ratio", 0.98, result.Derived)
	wantVerdict(t, claimOf(t, r, "hot"), result.NotHeld, "")
	// log bytes within ±5%: noise
	b := runOf(r, "baseline c=1").Database["log_bytes"].V()
	set(co.Database, "log_bytes", 0.97*b, result.Exact)
	wantVerdict(t, claimOf(t, r, "reposition.log_bytes"), result.NotHeld, "")
	// a metric the run could not read: not measured, with its reason
	co.Index(expirationIndex).Metrics["leaf_inserts"] = result.NA("pg_walinspect", "pg_walinspect is not installed")
	wantVerdict(t, claimOf(t, r, "reposition.leaf_inserts"), result.NotMeasured, "pg_walinspect is not installed")
}

func TestClaimsContentionOnPostgres(t *testing.T) {
	t.Parallel()
	r := sweep(t, "claims_pg15_sweep")
	shares(runOf(r, "baseline c=8"), 900, map[string]float64{"CPU.running": 0.6, "LWLock.BufferContent": 0.03, "IO.WALSync": 0.37})
	shares(runOf(r, "coarse c=8"), 880, map[string]float64{"CPU.running": 0.7, "LWLock.BufferContent": 0.01, "IO.WALSync": 0.29})
	cl := claimOf(t, r, "contention")
	wantVerdict(t, cl, result.Held, "")
	if cl.From != "baseline c=8" || cl.To != "coarse c=8" || cl.Exactness != result.Approx ||
		!strings.Contains(cl.Measured, "3.0% → 1.0%") || !strings.Contains(cl.Measured, "CPU.running 60%, IO.WALSync 37%, LWLock.BufferContent 3%") {
		t.Errorf("contention at the highest level: %+v", cl)
	}
	// 5% or more of the sampled time in buffer locks: the claim did not hold
	shares(runOf(r, "coarse c=8"), 880, map[string]float64{"LWLock.BufferContent": 0.02, "BufferPin.BufferPin": 0.04})
	wantVerdict(t, claimOf(t, r, "contention"), result.NotHeld, "")
	// too few samples to say
	set(runOf(r, "coarse c=8").Database, "wait_samples", 12, result.Approx)
	wantVerdict(t, claimOf(t, r, "contention"), result.NotMeasured, "only 12 wait samples")
	// one level of one worker: nothing contends
	one := fixture(t)
	wantVerdict(t, claimOf(t, one, "contention"), result.NotMeasured, "no concurrency above 1")
}

func TestClaimsVacuum(t *testing.T) {
	t.Parallel()
	r := sweep(t, "claims_pg15_sweep")
	for label, v := range map[string]float64{"baseline c=1": 2000, "coarse c=1": 500} {
		run := runOf(r, label)
		set(run.Database, "vacuum_log_bytes", 100*v, result.Exact)
		set(run.Table(userSessions).Metrics, "vacuum_pages_scanned", 25, result.Exact)
		set(run.Table(userSessions).Metrics, "vacuum_dead_items_removed", v, result.Exact)
		for i := range run.Indexes {
			if run.Indexes[i].Table == userSessions {
				set(run.Indexes[i].Metrics, "vacuum_index_entries_removed", v, result.Exact)
			}
		}
	}
	wantVerdict(t, claimOf(t, r, "vacuum.log_bytes"), result.Held, "")
	wantVerdict(t, claimOf(t, r, "vacuum.dead_items_removed"), result.Held, "")
	wantVerdict(t, claimOf(t, r, "vacuum.pages_scanned"), result.NotHeld, "")
	ie := claimOf(t, r, "vacuum.index_entries_removed")
	wantVerdict(t, ie, result.Held, "")
	// summed over offline_user_session's indexes (4 in both variants' runs here)
	n := 0
	for _, o := range runOf(r, "coarse c=1").Indexes {
		if o.Table == userSessions {
			n++
		}
	}
	if want := float64(n) * 500 / 3000; *ie.After != want {
		t.Errorf("index entries removed per refresh %v, want %v", *ie.After, want)
	}
	if hasClaim(r, "vacuum") {
		t.Error("with --vacuum's figures the one not-measured row goes")
	}
}

func TestClaimsOnMariaDBSweep(t *testing.T) {
	t.Parallel()
	r := sweep(t, "claims_mariadb_sweep")
	li := claimOf(t, r, "reposition.leaf_inserts")
	wantVerdict(t, li, result.Held, "")
	if li.Exactness != result.Derived {
		t.Errorf("MariaDB's leaf inserts are derived: %+v", li)
	}
	if hasClaim(r, "hot") || hasClaim(r, "vacuum") {
		t.Error("HOT and VACUUM claims are PostgreSQL's")
	}
	// pages touched from the buffer pool: approx, the weakest input
	if ws := claimOf(t, r, "working_set.index"); ws.Exactness != result.Approx {
		t.Errorf("working set: %+v", ws)
	}
	wantVerdict(t, claimOf(t, r, "page_writes"), result.NotMeasured, "no page-write counter")
	// the server buffers nothing (MariaDB 10.11's default)
	wantVerdict(t, claimOf(t, r, "change_buffer"), result.NotMeasured, "innodb_change_buffering = none")
	// the same server with buffering on: held when a change was buffered or merged
	for i := range r.Runs {
		r.Runs[i].Window.Marks["innodb_change_buffering_after"] = "all"
	}
	wantVerdict(t, claimOf(t, r, "change_buffer"), result.NotHeld, "")
	set(runOf(r, "baseline c=1").Database, "ibuf_merged_inserts", 40, result.Exact)
	wantVerdict(t, claimOf(t, r, "change_buffer"), result.Held, "")
	for i := range r.Runs {
		r.Runs[i].Window.Marks["innodb_change_buffering_after"] = ""
	}
	wantVerdict(t, claimOf(t, r, "change_buffer"), result.NotMeasured, "no InnoDB change buffer")
	// contention without sampled shares: the server's row-lock wait time at c=8
	cl := claimOf(t, r, "contention")
	wantVerdict(t, cl, result.NotHeld, "")
	if cl.Metric != "waits.*_ms" || !strings.Contains(cl.Measured, "c=8: server-wide") {
		t.Errorf("contention from the row-lock counters: %+v", cl)
	}
	// with the sampler's shares: Lock.row_lock falls beyond 5 pt
	shares(runOf(r, "baseline c=8"), 400, map[string]float64{"Lock.row_lock": 0.2, "State.updating": 0.8})
	shares(runOf(r, "coarse c=8"), 400, map[string]float64{"Lock.row_lock": 0.05, "State.updating": 0.95})
	wantVerdict(t, claimOf(t, r, "contention"), result.Held, "")
}

func TestClaimsOnSQLServerAndOracle(t *testing.T) {
	t.Parallel()
	r := sweep(t, "claims_pg15_sweep")
	r.Server.Dialect = "sqlserver"
	shares(runOf(r, "baseline c=8"), 500, map[string]float64{"Latch.PAGELATCH_EX": 0.40, "CPU.running": 0.6})
	shares(runOf(r, "coarse c=8"), 500, map[string]float64{"Latch.PAGELATCH_EX": 0.10, "CPU.running": 0.9})
	wantVerdict(t, claimOf(t, r, "contention"), result.Held, "")
	if hasClaim(r, "hot") {
		t.Error("HOT is PostgreSQL's")
	}
	// without shares: the workload sessions' PAGELATCH_EX time, the same in both
	for _, l := range []string{"baseline c=8", "coarse c=8"} {
		db := runOf(r, l).Database
		for k := range db {
			if strings.HasPrefix(k, "wait_") {
				delete(db, k)
			}
		}
		set(db, "session_waits.pagelatch_ex_ms", 3000, result.Exact)
		set(db, "session_waits.pagelatch_ex", 900, result.Exact)
	}
	cl := claimOf(t, r, "contention")
	wantVerdict(t, cl, result.NotHeld, "")
	if cl.Metric != "session_waits.*_ms" || cl.Exactness != result.Exact || *cl.Before != 1 {
		t.Errorf("PAGELATCH_EX time per refresh: %+v", cl)
	}
	r.Server.Dialect = "oracle"
	shares(runOf(r, "baseline c=8"), 500, map[string]float64{"Concurrency.buffer busy waits": 0.2, "Concurrency.enq: TX - index contention": 0.1})
	shares(runOf(r, "coarse c=8"), 500, map[string]float64{"Concurrency.buffer busy waits": 0.25, "Concurrency.enq: TX - index contention": 0.1})
	cl = claimOf(t, r, "contention")
	wantVerdict(t, cl, result.NotHeld, "")
	if math.Abs(*cl.Before-0.3) > 1e-9 || math.Abs(*cl.After-0.35) > 1e-9 {
		t.Errorf("Oracle sums both events: %+v", cl)
	}
}

func TestNoClaimsWithoutBothVariants(t *testing.T) {
	t.Parallel()
	r := fixture(t)
	r.Runs = r.Runs[1:]
	if cs := FromResult(r).Claims; len(cs) != 0 {
		t.Errorf("coarse alone has no claims: %+v", cs)
	}
	r = fixture(t)
	r.Workload.Name = "command"
	if cs := FromResult(r).Claims; len(cs) != 0 {
		t.Errorf("another workload has no claims: %+v", cs)
	}
}

// The refresh-token workload's objects the claims name (its claims live in
// workloads/refreshtoken; these tests hold their rendering and rules).
const (
	expirationIndex = "idx_user_session_expiration_last_refresh"
	userSessions    = "offline_user_session"
)
