package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/reports"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

func newRunCmd() *cobra.Command {
	p := refreshtoken.DefaultParams()
	var (
		dsn, format, output string
		variants            []string
		keep, quiet, noPipe bool
	)
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the refresh-token workload on each variant and compare what it cost",
		Long: `run measures the built-in refresh-token workload, which models Keycloak's persistent
user sessions (Keycloak PR #51904): logins insert a user and a client session,
token refreshes update both, a share of users log out.

Variants: baseline (Keycloak 26.7's tables and indexes, LAST_SESSION_REFRESH in
an expiration index) and coarse (26.8: SESSION_BUCKET, LAST_SESSION_REFRESH_COARSE,
rebuilt expiration indexes, filtered broker index).

Without --dsn (and without WRITEAMP_DSN, DATABASE_URL or PG* variables) it
starts a throwaway local PostgreSQL and removes it afterwards. With --dsn it
creates its own schema in that database, touches nothing else, and drops the
schema at the end, on error and on Ctrl-C (--keep keeps it for inspection).

The clock is simulated: refresh timestamps follow --refresh-period, but the run
does not sleep, so a 300-second scenario runs as fast as the database allows.`,
		Example: `  writeamp run
  writeamp run --dsn postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable
  writeamp run --logins 300 --variants coarse --format json --output coarse.json
  writeamp run --concurrency 8 --refresh-period 10m --max-idle 30m   # sessions cross coarse boundaries`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := reports.CheckFormat(format); err != nil {
				return usageError{err}
			}
			if err := p.Validate(); err != nil {
				return usageError{err}
			}
			if len(variants) == 0 {
				return usagef("--variants: name at least one of %s", strings.Join(refreshtoken.Variants, ", "))
			}
			for _, v := range variants {
				if !contains(refreshtoken.Variants, v) {
					return usagef("--variants: unknown variant %q (known: %s)", v, strings.Join(refreshtoken.Variants, ", "))
				}
			}
			var log io.Writer = os.Stderr
			if quiet {
				log = io.Discard
			}
			ctx := cmd.Context()
			t, err := connect(ctx, dsn, true, log)
			if err != nil {
				return err
			}
			defer t.Close()
			t.DB.SetMaxOpenConns(p.Concurrency + 2)
			t.DB.SetMaxIdleConns(p.Concurrency + 2)
			fmt.Fprintf(log, "measuring on %s (%s)\n", t.Server, t.Where)
			wl := refreshtoken.New(p)
			wl.NoPipeline = noPipe
			exp := &measure.Experiment{
				DB: t.DB, Server: t.Server, Workload: wl, Variants: variants, Keep: keep,
				Progress: progressFor(!quiet), Log: log,
			}
			res, runErr := exp.Run(ctx)
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
	f.IntVar(&p.Logins, "logins", p.Logins, "user logins (sessions created)")
	f.IntVar(&p.RefreshesPerLogin, "refreshes-per-login", p.RefreshesPerLogin, "token refreshes per session")
	f.DurationVar(&p.RefreshPeriod, "refresh-period", p.RefreshPeriod, "simulated time between a session's refreshes")
	f.Float64Var(&p.LogoutPercent, "logout-percent", p.LogoutPercent, "share of sessions that log out after their refreshes")
	f.DurationVar(&p.MaxIdle, "max-idle", p.MaxIdle, "SSO session max idle; the coarse column's granularity is half of it")
	f.IntVar(&p.Buckets, "buckets", p.Buckets, "SESSION_BUCKET values (coarse variant)")
	f.IntVar(&p.Concurrency, "concurrency", p.Concurrency, "workers, each on its own connection (1 reproduces the reference run's one-at-a-time load; more adds contention)")
	f.Uint64Var(&p.Seed, "seed", p.Seed, "seed for session ids and who logs out (same seed, same work)")
	f.IntVar(&p.FillFactor, "fillfactor", p.FillFactor, "PostgreSQL heap fillfactor of the session tables (Keycloak ships 100; lower leaves room for HOT updates)")
	f.Float64Var(&p.UsersPerSecond, "users-per-second", p.UsersPerSecond, "simulated login arrival rate")
	f.StringSliceVar(&variants, "variants", refreshtoken.Variants, "variants to measure, in order: "+strings.Join(refreshtoken.Variants, ","))
	f.StringVar(&format, "format", "table", "output format: "+strings.Join(reports.Formats, "|"))
	f.StringVarP(&output, "output", "o", "", "write the report to this file instead of stdout")
	f.BoolVar(&noPipe, "no-pipeline", false, "send each statement and wait for it (default: one round trip per transaction where the driver can pipeline)")
	f.BoolVar(&keep, "keep", false, "keep the workload's schema after the run for inspection")
	f.BoolVarP(&quiet, "quiet", "q", false, "no progress or notes on stderr")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(reports.Formats, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("variants", cobra.FixedCompletions(refreshtoken.Variants, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
