package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/spf13/cobra"

	"github.com/writeamp/writeamp/check"
	"github.com/writeamp/writeamp/check/ciout"
	"github.com/writeamp/writeamp/internal/scratch"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

func newCheckCmd(a *app) *cobra.Command {
	wl := refreshtoken.New(refreshtoken.DefaultParams())
	wl.P.Logins = 300
	req := check.Request{Workload: wl, Concurrency: 1, Repeat: 1}
	var (
		outputs           ciout.Outputs
		dsn               string
		quiet, showOutput bool
		lockTimeout       time.Duration
		copyMax, pgBin    string
		conf              checkConfig
	)
	cmd := &cobra.Command{
		Use:   "check --migration up.sql [--budget B]... [-- COMMAND [ARG]...]",
		Short: "Does this migration make writes more expensive? Measure before and after, hold it against budgets",
		Long: `check measures a workload, applies a migration, measures the workload again and holds
the difference against budgets; the database is left as it was.

The workload is the built-in Keycloak refresh-token one (default; its flags say built-in)
in a schema of its own, or -- COMMAND (psql -f work.sql, pgbench, your tests), measured on
copies of the database unless --in-place (undone after, the restore proved) or --clone
(PostgreSQL template copies). --migration takes files or directories (*.sql in name
order); a migration check cannot undo is refused before anything is applied.

Budgets (repeatable): METRIC[/op][[OBJECT]] (<=|>=|<|>) THRESHOLD; THRESHOLD is +N% or -N%
(relative change), +N or -N (absolute change) or N (after value); a byte metric takes a
unit (2KiB), a ratio a fraction (0.9). --repeat N judges the medians of N runs a side.
Config: writeamp.yaml or .writeamp.yaml up to the repository root, or --config FILE.
` + wrapHelp(check.ExitCodes, 90) + `
Reference: docs/cli/writeamp_check.md, docs/check-ci.md (modes, restore, CI outputs, config)`,
		Example: `  # the built-in workload on a throwaway PostgreSQL
  writeamp check --migration add_index.sql --budget 'hot_ratio>=0.9' --budget 'log_bytes/op<=+5%'
  # your own workload, on copies of the database, three times each side
  writeamp check --dsn "$DSN" --migration migrations/ --repeat 3 --budget 'log_bytes/op<=+5%' -- psql "$DSN" -f work.sql
  # a PR comment and a JUnit report
  writeamp check --migration up.sql --budget 'log_bytes/op<=+5%' --format markdown -o check.md --junit check.xml`,
		RunE: func(cmd *cobra.Command, args []string) error {
			command, err := check.CommandAfterDash(args, cmd.ArgsLenAtDash())
			if err != nil {
				return usageError{err}
			}
			req.Command = command
			if cmd.Flags().Changed("lock-timeout") {
				req.LockTimeout = &lockTimeout
			}
			file, err := conf.apply(cmd, &req, &dsn)
			if err != nil {
				return usageError{err}
			}
			if conf.print {
				return printConfig(cmd.OutOrStdout(), file, req, conf.dsnOrigin(cmd))
			}
			if copyMax != "" {
				n, err := humanize.ParseBytes(copyMax)
				if err != nil || n == 0 {
					return usagef("--copy-max-size %q: give a size such as 2GiB or 500MB", copyMax)
				}
				req.CopyMaxSize = int64(n)
			}
			if pgBin != "" {
				if command == nil || req.InPlace || req.Clone {
					return usagef("--pg-bin chooses the binaries of the scratch PostgreSQL that -- COMMAND is measured on by default; it has no use with --in-place, --clone or the built-in workload")
				}
				if err := scratch.CheckPostgresBin(pgBin); err != nil {
					return usagef("--pg-bin: %v", err)
				}
			}
			g, err := req.Gate()
			if err != nil {
				return usageError{err}
			}
			src := sourceOf(dsn)
			if src.embedded && command != nil {
				return usagef("-- COMMAND needs --dsn (or WRITEAMP_DSN, DATABASE_URL, PG*): the command must reach the database check measures")
			}
			if a.beforeConnect != nil && command == nil {
				a.beforeConnect(wl)
			}
			open := fitProcs(a, req.Concurrency, src)
			log := a.notes(quiet)
			ctx := cmd.Context()
			t, err := connect(ctx, src, embedOpts{Allow: true}, log, open)
			if err != nil {
				return exitError{code: exitUsage, err: err}
			}
			defer t.Close()
			t.DB.SetMaxOpenConns(req.Concurrency + 5) // workers, schema lock, instrumentation, snapshots, migration, wait sampler
			fmt.Fprintf(log, "checking on %s (%s)\n", t.Server, t.Where)
			win, err := t.measuredWindow(log, true)
			if err != nil {
				return exitError{code: exitUsage, err: err}
			}
			g.Window, g.Log, g.Progress = win, log, progressFor(!quiet)
			g.OpenAs = t.openAs()
			// A misspelled budget object fails now, not after the workload.
			if err := g.CheckBudgetObjects(ctx); err != nil {
				return usageError{err}
			}
			if req.Clone {
				c, closeAdmin, err := newCloner(ctx, t, log)
				if err != nil {
					return err
				}
				defer closeAdmin()
				g.Mode.(*check.Clone).Cloner = c
			}
			if cp, ok := g.Mode.(*check.Copy); ok {
				closeCopy, err := wireCopy(ctx, cp, t, log, copyOpts{PgBin: pgBin})
				if err != nil {
					return err
				}
				defer closeCopy()
			}
			if showOutput {
				check.ShowOutput(g.Mode, os.Stderr)
			}
			out, runErr := g.Run(ctx)
			outputs.StepSummary = os.Getenv("GITHUB_STEP_SUMMARY")
			outputs.Annotate = os.Getenv("GITHUB_ACTIONS") == "true"
			outputs.Stdout, outputs.Stderr, outputs.Log = cmd.OutOrStdout(), cmd.ErrOrStderr(), log
			outputs.Width = outputWidth(outputs.Report)
			return ciout.Write(out, outputs, runErr)
		},
	}
	f := cmd.Flags()
	f.StringVar(&dsn, "dsn", "", "database URL (else WRITEAMP_DSN, DATABASE_URL, PG*, or a throwaway PostgreSQL)")
	f.StringArrayVar(&req.Schemas, "schema", nil, "SQL file or directory applied before the first measurement (repeatable)")
	f.StringArrayVar(&req.Migrations, "migration", nil, "the migration: SQL file or directory of *.sql in name order (repeatable)")
	f.StringArrayVar(&req.Budgets, "budget", nil, "a budget such as 'log_bytes/op<=+5%' (repeatable; grammar above)")
	f.BoolVar(&req.ReportOnly, "report-only", false, "measure and report without a verdict (every budget advisory)")
	formatFlag(cmd, &outputs.Format, ciout.Formats)
	f.StringVarP(&outputs.Report, "output", "o", "", "write the report to this file instead of stdout")
	f.StringVar(&outputs.JUnit, "junit", "", "also write a JUnit XML report to this file (- for stdout)")
	pushVar(cmd, &outputs.Push)
	f.StringVar(&outputs.SARIF, "sarif", "", "also write a SARIF 2.1.0 log for code scanning to this file (- for stdout)")
	f.StringVar(&outputs.Result, "result", "", "also save the result JSON (for writeamp plan) to this file (- for stdout)")
	listFlag(f, &req.ScopeSchemas, "scope-schema", "", nil, "-- COMMAND: measure these schemas' tables (default: every user schema)")
	f.BoolVar(&showOutput, "show-output", false, "-- COMMAND: pass the command's output to stderr (default: discarded)")
	f.StringVar(&req.Variant, "variant", "baseline", "built-in: the variant to migrate: "+strings.Join(refreshtoken.Variants, "|"))
	f.AddFlagSet(workloadFlags(wl, "built-in: "))
	f.IntVar(&req.Concurrency, "concurrency", req.Concurrency, "built-in: workers, each on its own connection")
	f.StringArrayVar(&req.Downs, "down", nil, "-- COMMAND: SQL file or directory that undoes the migration (repeatable)")
	f.BoolVar(&req.InPlace, "in-place", false, "-- COMMAND: migrate, measure and undo on the database itself, not on copies")
	f.StringVar(&copyMax, "copy-max-size", "", "-- COMMAND: the largest database check copies (default 2GiB)")
	f.StringVar(&pgBin, "pg-bin", "", "-- COMMAND: bin directory of the scratch PostgreSQL (default: the same major's)")
	f.BoolVar(&req.Clone, "clone", false, "-- COMMAND, PostgreSQL: measure on CREATE DATABASE … TEMPLATE copies")
	f.BoolVar(&req.KeepMigration, "keep-migration", false, "-- COMMAND: leave the migration (and --schema) applied")
	f.IntVar(&req.Repeat, "repeat", 1, "measure each side N times; budgets judge the medians")
	f.DurationVar(&lockTimeout, "lock-timeout", check.DefaultLockTimeout, "longest lock wait of a migration or undo statement (0: no limit)")
	f.BoolVarP(&quiet, "quiet", "q", false, "no progress or notes on stderr")
	conf.flags(cmd)
	return cmd
}
