package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jedib0t/go-pretty/v6/table"

	"github.com/writeamp/writeamp/advise"
	"github.com/writeamp/writeamp/dialects"
)

// adviseDB is the database the advise rows advise on, on a server of the
// bench's own: every check copies it, and copies on the shared server
// would weigh on everyone using it.
const adviseDB = "writeamp_bench_advise"

// adviseTxns is the wrapped pgbench's transactions per side of a check.
const adviseTxns = 1000

var adviseReps = flag.Int("advise-reps", 3, "alternating pairs of the advise rows")

// adviseIndex is the index the schema adds to pgbench's: every pgbench
// UPDATE sets its key, so it is advise's first candidate.
const adviseIndex = "acc_abalance"

// adviseRows are writeamp advise's cost against the same checks run by
// hand: advise with one candidate is the diagnose check (SELECT 1 as the
// migration) and one report-only check of the candidate, so its peer is
// those two `writeamp check --report-only` runs; and the time one more
// candidate adds to advise against one check of that candidate.
func adviseRows(ctx context.Context, t *progressTable, srv dialects.Server) {
	reps := *adviseReps
	if *quick {
		reps = 1
	}
	src, bin, admin, stop := throwawayLike(ctx, srv.VersionNum/10000, "advise rows")
	defer stop()
	mustExec(admin, `CREATE DATABASE `+adviseDB)
	dsn := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", src.Port, adviseDB)
	pgbench := filepath.Join(bin, "pgbench")
	if _, err := os.Stat(pgbench); err != nil {
		pgbench = "pgbench"
	}
	runEnv(clientEnv(), pgbench, "-i", "-q", "-s", "1", dsn)
	runEnv(clientEnv(), filepath.Join(bin, "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", dsn, "-c", "create index "+adviseIndex+" on pgbench_accounts (abalance)")
	waitNoSession(ctx, admin, adviseDB)

	dir, err := os.MkdirTemp("", "writeamp-bench-advise-")
	if err != nil {
		fatal("advise rows: " + err.Error())
	}
	defer os.RemoveAll(dir)
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			fatal("advise rows: " + err.Error())
		}
		return p
	}
	diagSQL, dropSQL := file("diagnose.sql", "select 1;\n"), file("drop.sql", "drop index "+adviseIndex+";\n")
	work := []string{pgbench, "-n", "-t", strconv.Itoa(adviseTxns), dsn}
	timed := func(args []string) float64 {
		// Each timed run starts from a clean checkpoint: the previous
		// run's dirty buffers are not its cost.
		mustExec(admin, `CHECKPOINT`)
		t0 := time.Now()
		runEnv(clientEnv(), *binary, args...)
		return time.Since(t0).Seconds()
	}
	adviseOut := func(n int) string { return filepath.Join(dir, fmt.Sprintf("advice-%d.json", n)) }
	adviseRun := func(n int) float64 { return timed(adviseArgs(dsn, n, adviseOut(n), work)) }
	checkRun := func(migration string) float64 { return timed(checkArgs(dsn, migration, work)) }

	// An untimed run of each advise first: it says which candidates they
	// measure (the second is the peer's migration of the per-candidate
	// row), and warms the page cache for both sides alike.
	t0 := time.Now()
	adviseRun(1)
	adviseRun(2)
	fmt.Fprintf(os.Stderr, "bench: advise rows: warm-up advise runs (1 and 2 candidates) in %s\n", time.Since(t0).Round(time.Second))
	one, err := readAdvice(adviseOut(1))
	if err != nil {
		fatal("advise rows: " + err.Error())
	}
	if err := isDropOf(one, adviseIndex); err != nil {
		fatal("advise rows: advise --max-candidates 1: " + err.Error())
	}
	two, err := readAdvice(adviseOut(2))
	if err != nil {
		fatal("advise rows: " + err.Error())
	}
	second, err := extraCandidate(one, two)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench: advise rows: no time-per-candidate row: "+err.Error())
	}
	var candSQL string
	if second != nil {
		candSQL = file("candidate.sql", second.Migration.Up)
	}

	var ts []adviseTimes
	for i := 0; i < reps; i++ {
		var r adviseTimes
		wa := func() {
			r.one = adviseRun(1)
			if second != nil {
				r.two = adviseRun(2)
			}
		}
		peer := func() {
			r.diag, r.drop = checkRun(diagSQL), checkRun(dropSQL)
			if second != nil {
				r.cand = checkRun(candSQL)
			}
		}
		if i%2 == 0 {
			wa()
			peer()
		} else {
			peer()
			wa()
		}
		fmt.Fprintf(os.Stderr, "bench: advise pair %d: advise 1 candidate %.2f s, 2 candidates %.2f s; checks: SELECT 1 %.2f s, drop %.2f s, the second candidate %.2f s\n", i+1, r.one, r.two, r.diag, r.drop, r.cand)
		ts = append(ts, r)
	}
	whole, per := adviseRatios(ts)
	var ones, checks, extra, cands []float64
	for _, r := range ts {
		ones, checks = append(ones, r.one), append(checks, r.diag+r.drop)
		extra, cands = append(extra, r.two-r.one), append(cands, r.cand)
	}
	t.AppendSpreadRow(table.Row{fmt.Sprintf("writeamp advise --max-candidates 1 -- pgbench -n -t %d (the whole run: its diagnose check and one candidate's, drop index %s) on pgbench -i -s 1 plus an index on abalance, vs the two checks by hand (check --report-only with select 1, then with drop index %s), median of %d alternating pairs",
		adviseTxns, adviseIndex, adviseIndex, len(whole)),
		fmt.Sprintf("%.1f s", median(ones)), fmt.Sprintf("two checks %.1f s", median(checks)), fmt.Sprintf("%.3f", median(whole)), "<= 1.2"}, whole)
	if second != nil {
		t.AppendSpreadRow(table.Row{fmt.Sprintf("time per candidate: advise --max-candidates 2 minus --max-candidates 1 (the second candidate: %s) vs one check --report-only of that candidate's up migration, median of %d alternating pairs",
			second.Change, len(per)),
			fmt.Sprintf("%.1f s", median(extra)), fmt.Sprintf("one check %.1f s", median(cands)), fmt.Sprintf("%.3f", median(per)), "<= 1.2"}, per)
	}
}

// adviseTimes are one pair's seconds: advise with one and two candidates;
// the checks by hand with select 1, with the drop, with the second
// candidate's migration.
type adviseTimes struct{ one, two, diag, drop, cand float64 }

// adviseRatios are the pairs' ratios, each sorted: advise with one
// candidate over the two checks, and the second candidate's time in advise
// over its check (none when no pair measured a second candidate).
func adviseRatios(ts []adviseTimes) (whole, per []float64) {
	for _, r := range ts {
		whole = append(whole, r.one/(r.diag+r.drop))
		if r.cand > 0 {
			per = append(per, (r.two-r.one)/r.cand)
		}
	}
	sort.Float64s(whole)
	sort.Float64s(per)
	return whole, per
}

// adviseArgs are writeamp's arguments for advise with n candidates on the
// wrapped command work, its JSON report written to out.
func adviseArgs(dsn string, n int, out string, work []string) []string {
	return append([]string{"advise", "--dsn", dsn, "--max-candidates", strconv.Itoa(n), "-q", "--format", "json", "-o", out, "--"}, work...)
}

// checkArgs are writeamp's arguments for the report-only check a user
// runs by hand for one migration of the same work.
func checkArgs(dsn, migration string, work []string) []string {
	return append([]string{"check", "--report-only", "--dsn", dsn, "--migration", migration, "-q", "--"}, work...)
}

// readAdvice reads an advise JSON report's candidates: the measured ones,
// then the skipped ones.
func readAdvice(path string) ([]advise.Recommendation, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rep advise.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return append(rep.Recommendations, rep.Skipped...), nil
}

// isDropOf says whether the candidates are one measured drop of index:
// the work the peer's drop.sql does.
func isDropOf(cands []advise.Recommendation, index string) error {
	if len(cands) != 1 {
		return fmt.Errorf("%d candidates, want 1", len(cands))
	}
	c := cands[0]
	if c.Error != "" {
		return fmt.Errorf("its candidate %q was not measured: %s", c.Change, c.Error)
	}
	up := strings.ToLower(c.Migration.Up)
	if !strings.Contains(up, "drop index") || !strings.Contains(up, index) {
		return fmt.Errorf("its candidate is %q, not the drop of %s", c.Change, index)
	}
	return nil
}

// extraCandidate is the candidate advise with two candidates measured and
// advise with one did not (the reports rank by saving, not in the order
// measured, so it is found by its change).
func extraCandidate(one, two []advise.Recommendation) (*advise.Recommendation, error) {
	seen := map[string]bool{}
	for _, c := range one {
		seen[c.Change] = true
	}
	var extra []advise.Recommendation
	for _, c := range two {
		if !seen[c.Change] {
			extra = append(extra, c)
		}
	}
	switch {
	case len(extra) == 0:
		return nil, errors.New("advise --max-candidates 2 proposed no second candidate")
	case len(extra) > 1:
		return nil, fmt.Errorf("advise --max-candidates 2 has %d candidates advise --max-candidates 1 has not", len(extra))
	case extra[0].Error != "":
		return nil, fmt.Errorf("the second candidate %q was not measured: %s", extra[0].Change, extra[0].Error)
	}
	return &extra[0], nil
}

// waitNoSession waits until nobody is connected to database: check's
// copies on the server need that, and a client's backend is gone only
// once it has exited.
func waitNoSession(ctx context.Context, admin *sql.DB, database string) {
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var n int
		if err := admin.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = $1`, database).Scan(&n); err != nil {
			fatal(err.Error())
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			fatal(fmt.Sprintf("%d sessions still connected to %s", n, database))
		}
	}
}
