package postgres

import (
	"context"
	"database/sql"
	"math"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/writeamp/writeamp/collectors"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/internal/testing/testenv"
	"github.com/writeamp/writeamp/pgembed"
)

// fmtSscan reads the session-sample count from a Shares source ("...: 97
// samples, 346 session-samples active").
func fmtSscan(src string, n *float64) (int, error) {
	i := strings.LastIndex(src, " samples, ")
	if i < 0 {
		return 0, strconv.ErrSyntax
	}
	f := strings.Fields(src[i+len(" samples, "):])
	v, err := strconv.ParseFloat(f[0], 64)
	*n = v
	return 1, err
}

// waitSamplingBin is Debian's PostgreSQL 15, for which
// postgresql-15-pg-wait-sampling is packaged (scripts/services.sh installs
// it): the matrix's binaries have no extensions beyond contrib.
const waitSamplingBin = "/usr/lib/postgresql/15/bin"

// startWithWaitSampling starts a throwaway PostgreSQL 15 with
// pg_wait_sampling preloaded and created in its postgres database, where
// writeamp's wait sampler connects, and returns that database and a new one,
// work, to be measured.
func startWithWaitSampling(t *testing.T) (admin, work *sql.DB) {
	t.Helper()
	if _, err := os.Stat(waitSamplingBin + "/../lib/pg_wait_sampling.so"); err != nil {
		if testenv.CI() {
			t.Fatalf("pg_wait_sampling is not installed under CI=true: scripts/services.sh installs postgresql-15-pg-wait-sampling (%v)", err)
		}
		t.Skipf("pg_wait_sampling is not installed: apt-get install postgresql-15-pg-wait-sampling (make test does): %v", err)
	}
	ctx := context.Background()
	srv, err := pgembed.StartBin(ctx, waitSamplingBin, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop() })
	db, err := sql.Open("pgx", srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`ALTER SYSTEM SET shared_preload_libraries = 'pg_wait_sampling'`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if err := srv.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	// The extension goes where writeamp's sampler reads: the postgres
	// database, beside the measured one.
	if admin, err = sql.Open("pgx", strings.Replace(srv.DSN(), "dbname="+pgembed.Database, "dbname=postgres", 1)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	if _, err := admin.Exec(`CREATE EXTENSION pg_wait_sampling`); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(`CREATE DATABASE work`); err != nil {
		t.Fatal(err)
	}
	if work, err = sql.Open("pgx", strings.Replace(srv.DSN(), "dbname="+pgembed.Database, "dbname=work", 1)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { work.Close() })
	return admin, work
}

// TestWaitSharesAgreeWithPgWaitSampling runs four sessions that update three
// rows at random (row locks, WAL flushes, CPU) while writeamp's
// pg_stat_activity sampler and pg_wait_sampling (the server's own sampler,
// reading every process's wait at 10 ms without a query or snapshot) watch
// them. Truth: pg_wait_sampling's profile of the four pids, with their
// Client.ClientRead samples (waiting for the next command, idle) left out.
// Every state's share must be within 4 points of it, and no idle wait may
// count as active time. (On main at c03a1ed Client.ClientRead had a share
// of the workload's active time: state and wait_event are not read at one
// instant.)
func TestWaitSharesAgreeWithPgWaitSampling(t *testing.T) {
	t.Parallel()
	testenv.Heavy(t, "starts a PostgreSQL server of its own")
	admin, db := startWithWaitSampling(t)
	ctx := context.Background()
	if _, err := db.Exec(`CREATE TABLE t (id int PRIMARY KEY, v int); INSERT INTO t SELECT g, 0 FROM generate_series(1, 3) g`); err != nil {
		t.Fatal(err)
	}
	s, err := pg.Dialect{}.Probe(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	sessions := collectors.NewSessions()
	const workers = 4
	var pids []int64
	var conns []*sql.Conn
	for i := 0; i < workers; i++ {
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var pid int64
		if err := c.QueryRowContext(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
			t.Fatal(err)
		}
		pids, conns = append(pids, pid), append(conns, c)
		sessions.Set(strconv.FormatInt(pid, 10), "bump")
	}
	// The sampler connects to postgres, where pg_wait_sampling is created,
	// and reads its profile there.
	sm := PgStatActivity{}
	side, note, err := sm.OpenSampler(ctx, db, s)
	if err != nil || side == nil {
		t.Fatal(err, note)
	}
	defer side.Close()
	if _, err := admin.Exec(`SELECT pg_wait_sampling_reset_profile()`); err != nil {
		t.Fatal(err)
	}
	sampling, err := sm.Start(ctx, side, s, collectors.SampleTarget{Sessions: sessions.Lookup})
	if err != nil {
		t.Fatal(err)
	}
	stop := time.Now().Add(15 * time.Second)
	var wg sync.WaitGroup
	var werr error
	var mu sync.Mutex
	for i, c := range conns {
		wg.Add(1)
		go func(c *sql.Conn, seed int64) {
			defer wg.Done()
			r := rand.New(rand.NewSource(seed))
			for time.Now().Before(stop) {
				if _, err := c.ExecContext(ctx, `UPDATE t SET v = v + 1 WHERE id = $1`, 1+r.Intn(3)); err != nil {
					mu.Lock()
					werr = err
					mu.Unlock()
					return
				}
			}
		}(c, int64(i))
	}
	wg.Wait()
	fromProfile, err := sampling.Stop()
	if err != nil || werr != nil {
		t.Fatal(err, werr)
	}
	got := sampling.(*activitySampling).Sampled()
	rows, err := admin.Query(`SELECT coalesce(event_type, ''), coalesce(event, ''), sum(count)::bigint FROM pg_wait_sampling_profile WHERE pid = ANY($1) GROUP BY 1, 2`, pids)
	if err != nil {
		t.Fatal(err)
	}
	truth := map[string]float64{}
	var total, idle float64
	for rows.Next() {
		var class, event string
		var n float64
		if err := rows.Scan(&class, &event, &n); err != nil {
			t.Fatal(err)
		}
		if class == "" {
			continue // 1.1.4 records no samples of a process on CPU; newer ones do, as NULL
		}
		if class == "Client" && event == "ClientRead" {
			idle += n
			continue
		}
		truth[class+"."+event] += n
		total += n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if total < 500 {
		t.Fatalf("pg_wait_sampling saw only %v active samples of the workload (%v idle): too few to compare", total, idle)
	}
	// Both as shares of the waiting samples: Debian's pg_wait_sampling 1.1.4
	// does not sample processes on CPU.
	share := map[string]float64{}
	var src string
	for _, c := range got {
		if w, ok := strings.CutPrefix(c.Metric, "wait_share."); ok && w != "CPU.running" {
			share[w] = c.Value
			src = c.Source
		}
	}
	var waiting float64
	for _, v := range share {
		waiting += v
	}
	for k := range share {
		share[k] /= waiting
	}
	var sampled float64
	if _, err := fmtSscan(src, &sampled); err != nil {
		t.Fatalf("no session-sample count in the source %q: %v", src, err)
	}
	n := sampled * waiting // writeamp's waiting session-samples
	t.Logf("writeamp: %s", src)
	keys := map[string]bool{}
	for k := range truth {
		truth[k] /= total
		keys[k] = true
	}
	for k := range share {
		keys[k] = true
	}
	var names []string
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		t.Logf("%-28s writeamp %5.1f%% (±%.1f)  pg_wait_sampling %5.1f%%", k, 100*share[k], 100*sampling.(*activitySampling).StdErr(k)/waiting, 100*truth[k])
	}
	t.Logf("pg_wait_sampling: %.0f active samples, %.0f idle (Client.ClientRead)", total, idle)
	if v := share["Client.ClientRead"]; v > 0 {
		t.Errorf("Client.ClientRead counted as %.1f%% of active time: a session waiting for its next command is idle", 100*v)
	}
	// Tolerance: three standard errors of writeamp's share, plus a point
	// (pg_wait_sampling's own are ~20x more samples). The error is the
	// larger of the readings' (the sessions of one reading wait together:
	// CI once saw LWLock.BufferContent at 3.8% of 156 session-samples
	// against the profile's 0.2%, a handful of sessions in the same
	// reading or two) and the binomial one at the truth's share over the
	// session-samples (the readings' error is 0 for a wait never seen).
	for _, k := range names {
		p := truth[k]
		se := max(sampling.(*activitySampling).StdErr(k)/waiting, math.Sqrt(p*(1-p)/n))
		tol := 3*se + 0.01
		if d := math.Abs(share[k] - p); d > tol {
			t.Errorf("%s: writeamp %.1f%%, pg_wait_sampling %.1f%%: %.1f points apart (tolerance %.1f: standard error %.2f at %.0f samples)", k, 100*share[k], 100*p, 100*d, 100*tol, 100*se, n)
		}
	}
	// With pg_wait_sampling created where the sampler connects, the
	// figures are its profile's: each wait's share of the waiting time must
	// be the truth's (the same counts, diffed by the sampler), and its note
	// must carry pg_stat_activity's figure, agreeing within the tolerance
	// above.
	profShare := map[string]float64{}
	var profWaiting float64
	for _, c := range fromProfile {
		w, ok := strings.CutPrefix(c.Metric, "wait_share.")
		if !ok || w == "CPU.running" {
			continue
		}
		if !strings.HasPrefix(c.Source, "pg_wait_sampling_profile") || !strings.Contains(c.Note, "pg_stat_activity's sampler: ") {
			t.Errorf("%s: source %q, note %q: not labelled as pg_wait_sampling's with pg_stat_activity's figure beside it", c.Metric, c.Source, c.Note)
		}
		profShare[w] = c.Value
		profWaiting += c.Value
		src = c.Source
	}
	t.Logf("from the profile: %s", src)
	if profWaiting == 0 {
		t.Fatalf("no wait share from pg_wait_sampling's profile: %+v", fromProfile)
	}
	for _, k := range names {
		if d := math.Abs(profShare[k]/profWaiting - truth[k]); d > 1e-9 {
			t.Errorf("%s: from the profile %.2f%% of the waiting time, its counts say %.2f%%", k, 100*profShare[k]/profWaiting, 100*truth[k])
		}
	}
}
