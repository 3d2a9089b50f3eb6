package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/reports"
	"github.com/writeamp/writeamp/result"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

func newRunCmd() *cobra.Command {
	p := refreshtoken.DefaultParams()
	var (
		dsn, format, output string
		pgBin               string
		variants            []string
		keep, quiet, noPipe bool
		concurrency         string
	)
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the refresh-token workload on each variant and compare what it cost",
		Long: `run measures the built-in refresh-token workload, which models Keycloak's persistent
user sessions (Keycloak PR #51904) with keycloak-benchmark's AuthorizationCode
scenario: logins insert a user and a client session, token refreshes lock and
update both (a refresh in the login's second writes nothing, as in Keycloak),
a share of users log out. workloads/refreshtoken/README.md names the Keycloak
source of every statement and index.

Variants: baseline (Keycloak 26.7's tables and indexes, LAST_SESSION_REFRESH in
an expiration index) and coarse (26.8: SESSION_BUCKET, LAST_SESSION_REFRESH_COARSE,
rebuilt expiration indexes with INCLUDE columns where the database has them,
filtered broker index). What Keycloak has not published is a flag
(--bucket-function, --bucket-position, --css-user-session-index,
--first-refresh-after); the report lists these choices as assumptions.

Without --dsn (and without WRITEAMP_DSN, DATABASE_URL or PG* variables) it
starts a throwaway local PostgreSQL and removes it afterwards; --pg-bin (or
WRITEAMP_PG_BIN) picks its server binaries, so the same workload can be
measured on two major versions and compared. With --dsn it
creates its own schema in that database, touches nothing else, and drops the
schema at the end, on error and on Ctrl-C (--keep keeps it for inspection).

The clock is simulated: refresh timestamps follow --first-refresh-after and
--refresh-period, but the run
does not sleep, so a 300-second scenario runs as fast as the database allows.`,
		Example: `  writeamp run
  writeamp run --dsn postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable
  writeamp run --logins 300 --variants coarse --format json --output coarse.json
  writeamp run --concurrency 8 --refresh-period 10m --max-idle 30m   # sessions cross coarse boundaries
  writeamp run --first-refresh-after 1s   # the first refresh writes too: 11 expiration-index entries per login
  writeamp run --concurrency 1,8,32 --variants coarse --format html -o sweep.html   # throughput, latency and write amplification per level
  writeamp run --pg-bin /usr/lib/postgresql/13/bin -o pg13.json --format json    # the same workload on two majors,
  writeamp run --pg-bin /usr/lib/postgresql/17/bin -o pg17.json --format json    # then: writeamp compare pg13.json pg17.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			levels, err := parseLevels(concurrency)
			if err != nil {
				return usageError{err}
			}
			p.Concurrency = levels[0]
			if err := checkWorkloadParams(p); err != nil {
				return usageError{err}
			}
			if err := p.Validate(); err != nil {
				return usageError{err}
			}
			if len(variants) == 0 {
				return usagef("--variants: name at least one of %s", strings.Join(refreshtoken.Variants, ", "))
			}
			for _, v := range variants {
				if !slices.Contains(refreshtoken.Variants, v) {
					return usagef("--variants: unknown variant %q (known: %s)", v, strings.Join(refreshtoken.Variants, ", "))
				}
			}
			bin, err := pgBinOf(pgBin, dsn)
			if err != nil {
				return err
			}
			if beforeConnect != nil {
				beforeConnect(p)
			}
			log := notesWriter(quiet)
			ctx := cmd.Context()
			t, err := connect(ctx, dsn, embedOpts{Allow: true, Bin: bin}, log)
			if err != nil {
				return err
			}
			defer t.Close()
			top := slices.Max(levels)
			// Workers, plus the sessions that hold the schema's lock and the
			// window's instrumentation for the whole run, plus snapshots.
			t.DB.SetMaxOpenConns(top + 3)
			t.DB.SetMaxIdleConns(top + 3)
			fmt.Fprintf(log, "measuring on %s (%s)\n", t.Server, t.Where)
			var res *result.Result
			var runErr error
			// A sweep is one experiment per level: each level's runs are
			// columns of the same report, labelled with their level.
			for _, level := range levels {
				lp := p
				lp.Concurrency = level
				wl := refreshtoken.New(lp)
				wl.NoPipeline = noPipe
				exp := &measure.Experiment{
					DB: t.DB, Server: t.Server, Workload: wl, Variants: variants, Keep: keep,
					Progress: progressFor(!quiet), Log: log,
				}
				if len(levels) > 1 {
					fmt.Fprintf(log, "concurrency %d\n", level)
				}
				r, err := exp.Run(ctx)
				res = sweepMerge(res, r, level, len(levels) > 1)
				if err != nil {
					runErr = err
					break
				}
			}
			if res != nil && len(levels) > 1 {
				res.Workload.Params["concurrency"] = concurrency
			}
			if res != nil && len(res.Runs) > 0 {
				if err := emit(cmd.OutOrStdout(), format, output, res); err != nil {
					return err
				}
			}
			return runErr
		},
	}
	f := cmd.Flags()
	f.StringVar(&dsn, "dsn", "", "database URL (postgres://..., mysql://..., sqlserver://..., oracle://...); default: WRITEAMP_DSN, DATABASE_URL, PG* variables, else a throwaway local PostgreSQL")
	f.StringVar(&pgBin, "pg-bin", "", "server binaries (the bin directory holding initdb and postgres) of the throwaway PostgreSQL, to measure on a chosen major version; default: WRITEAMP_PG_BIN, else the newest found on this machine")
	workloadFlags(f, &p, "")
	f.StringVar(&concurrency, "concurrency", strconv.Itoa(p.Concurrency), "workers, each on its own connection (1 reproduces the reference run's one-at-a-time load; more adds contention); a list such as 1,8,32 sweeps the levels, each a column")
	listFlag(f, &variants, "variants", "", refreshtoken.Variants, "variants to measure, in order: "+strings.Join(refreshtoken.Variants, ","))
	formatFlag(cmd, &format, reports.Formats)
	f.StringVarP(&output, "output", "o", "", "write the report to this file instead of stdout")
	f.BoolVar(&noPipe, "no-pipeline", false, "send each statement and wait for it (default: one round trip per transaction where the driver can pipeline)")
	f.BoolVar(&keep, "keep", false, "keep the workload's schema after the run for inspection")
	f.BoolVarP(&quiet, "quiet", "q", false, "no progress or notes on stderr")
	_ = cmd.RegisterFlagCompletionFunc("variants", cobra.FixedCompletions(refreshtoken.Variants, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// beforeConnect, when set (FuzzCLIFlags), sees the workload parameters a
// command accepted, before it connects.
var beforeConnect func(refreshtoken.Params)

// parseLevels reads --concurrency: one level, or a comma-separated sweep.
func parseLevels(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("--concurrency: %q is not a number of workers (1 or more; a sweep is 1,8,32)", strings.TrimSpace(f))
		}
		if slices.Contains(out, n) {
			return nil, fmt.Errorf("--concurrency: level %d given twice", n)
		}
		out = append(out, n)
	}
	return out, nil
}

// sweepMerge adds one level's runs to the sweep's result; with several
// levels every run says its level in its label and in the JSON.
func sweepMerge(acc, r *result.Result, level int, sweep bool) *result.Result {
	if r == nil {
		return acc
	}
	for i := range r.Runs {
		if sweep {
			r.Runs[i].Concurrency = level
			r.Runs[i].Label = fmt.Sprintf("%s c=%d", r.Runs[i].Variant, level)
		}
	}
	if acc == nil {
		return r
	}
	acc.Runs = append(acc.Runs, r.Runs...)
	for _, n := range r.Notes {
		if !slices.Contains(acc.Notes, n) {
			acc.Notes = append(acc.Notes, n)
		}
	}
	return acc
}
