package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/writeamp/writeamp/budget"
	"github.com/writeamp/writeamp/check"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

func newCheckCmd() *cobra.Command {
	wl := refreshtoken.New(refreshtoken.DefaultParams())
	wl.P.Logins = 300
	req := check.Request{Workload: wl, Concurrency: 1, Repeat: 1}
	var (
		outputs           check.Outputs
		dsn               string
		quiet, showOutput bool
	)
	cmd := &cobra.Command{
		Use:   "check --migration up.sql [--budget B]... [-- COMMAND [ARG]...]",
		Short: "Does this migration make writes more expensive? Measure before and after, hold it against budgets",
		Long: `check measures a workload, applies a migration, measures the same workload again,
compares the two side by side and holds the difference against budgets.

Workload:
  - the built-in refresh-token workload (default; --variant and its knobs). It runs in
    its own schema writeamp_rt_<run>_<variant>; --schema and --migration are applied
    inside that schema (search_path = that schema, then public), so they use
    unqualified table names (offline_user_session ...). PostgreSQL only.
  - or -- COMMAND: run once before and once after the migration (psql -f work.sql,
    pgbench, your test suite ...). --schema and --migration are applied to the
    database itself: point --dsn at a scratch database. Per operation (/op) means
    per row written (inserted + updated + deleted in the measured tables).

--migration is repeatable and may be a directory: its *.sql files in name order
(*.down.sql skipped; of a goose file, its Up section). Statements are split as
the server's client would (PostgreSQL: by PostgreSQL's parser; MySQL: DELIMITER;
SQL Server: GO; Oracle: / after PL/SQL; README "How check reads SQL") and run one
by one outside an explicit transaction, so CREATE INDEX CONCURRENTLY works.

Budgets (repeatable; grammar: ` + budget.Grammar + `):
  log_bytes/op<=+5%              log bytes per operation grow at most 5%
  hot_ratio>=0.9                 every updated table keeps 90% HOT updates (PostgreSQL)
  hot_ratio[jobs]>=-0.05         ... or loses at most 5 points
  leaf_inserts/op[idx_name]<=+0% no more leaf inserts per operation in that index
  log_bytes/op<=2KiB             an absolute ceiling
A table/index budget without [object] applies to every object that has the metric.
Metrics are those of the result JSON. On PostgreSQL log_bytes is the whole cluster's
WAL in the window (other sessions included); log_bytes_in_scope counts only the
measured objects' transactions (pg_walinspect) and is the steadier one to budget.

Before running, check warns when the migration indexes a column the workload
updates (on PostgreSQL those updates can no longer be HOT; on MySQL/MariaDB each
also rewrites an entry of that index) and names the index, the column and the
statement. For -- COMMAND it reads the UPDATEs of *.sql
files named on the command line and of inline SQL.

Exit codes: 0 within budget, 1 a budget exceeded, 2 could not measure (bad input,
a failing migration or command, or a budget that could not be evaluated).
Output: the comparison table and a verdict per budget (--format table|markdown|json),
--junit FILE for CI, and a Markdown summary appended to $GITHUB_STEP_SUMMARY when set.
See docs/check-ci-example.md for a GitHub Actions workflow.`,
		Example: `  # built-in workload, migration on its session tables, on a throwaway PostgreSQL
  writeamp check --migration add_index.sql --budget 'hot_ratio>=0.9' --budget 'log_bytes/op<=+5%'

  # your own workload against a scratch database
  writeamp check --dsn postgres://ci@localhost:5432/scratch --schema base.sql \
    --migration migrations/ --budget 'hot_ratio>=0.9' -- psql "$DSN" -f work.sql

  # a PR comment and a JUnit report
  writeamp check --migration up.sql --budget 'leaf_inserts/op[idx_name]<=+0%' \
    --format markdown --output check.md --junit check.xml`,
		RunE: func(cmd *cobra.Command, args []string) error {
			command, err := check.CommandAfterDash(args, cmd.ArgsLenAtDash())
			if err != nil {
				return usageError{err}
			}
			req.Command = command
			g, err := req.Gate()
			if err != nil {
				return usageError{err}
			}
			if _, _, embedded := resolveDSN(dsn); embedded && command != nil {
				return usagef("-- COMMAND needs --dsn (or WRITEAMP_DSN, DATABASE_URL, PG*): the command must reach the database check measures")
			}
			if beforeConnect != nil && command == nil {
				beforeConnect(wl)
			}
			log := notesWriter(quiet)
			ctx := cmd.Context()
			t, err := connect(ctx, dsn, embedOpts{Allow: true}, log)
			if err != nil {
				return exitError{code: exitUsage, err: err}
			}
			defer t.Close()
			t.DB.SetMaxOpenConns(req.Concurrency + 4) // workers, schema lock, instrumentation, snapshots, migration
			fmt.Fprintf(log, "checking on %s (%s)\n", t.Server, t.Where)
			win, err := t.window(log)
			if err != nil {
				return exitError{code: exitUsage, err: err}
			}
			g.Window, g.Log, g.Progress = win, log, progressFor(!quiet)
			if req.Clone {
				c, closeAdmin, err := newCloner(ctx, t, log)
				if err != nil {
					return err
				}
				defer closeAdmin()
				g.Clone = c
			}
			if showOutput {
				g.CommandOutput = os.Stderr
			}
			out, runErr := g.Run(ctx)
			outputs.StepSummary = os.Getenv("GITHUB_STEP_SUMMARY")
			outputs.Stdout, outputs.Stderr, outputs.Log = cmd.OutOrStdout(), cmd.ErrOrStderr(), log
			return out.Write(outputs, runErr)
		},
	}
	f := cmd.Flags()
	f.StringVar(&dsn, "dsn", "", "database URL; default: WRITEAMP_DSN, DATABASE_URL, PG* variables, else a throwaway local PostgreSQL")
	f.StringArrayVar(&req.Schemas, "schema", nil, "SQL file or directory to start from, applied before the first measurement (repeatable)")
	f.StringArrayVar(&req.Migrations, "migration", nil, "the migration: SQL file or directory of *.sql in name order (repeatable, in order)")
	f.StringArrayVar(&req.Budgets, "budget", nil, "budget, e.g. 'log_bytes/op<=+5%' or 'hot_ratio>=0.9' (repeatable; see the grammar above)")
	formatFlag(cmd, &outputs.Format, check.Formats)
	f.StringVarP(&outputs.Report, "output", "o", "", "write the report to this file instead of stdout")
	f.StringVar(&outputs.JUnit, "junit", "", "also write a JUnit XML report (one test case per budget) to this file (- for stdout)")
	f.StringVar(&outputs.Result, "result", "", "also save the before/after result JSON (for writeamp plan) to this file (- for stdout)")
	listFlag(f, &req.ScopeSchemas, "scope-schema", "", nil, "-- COMMAND only: measure the tables of these schemas (default: every user schema)")
	f.BoolVar(&showOutput, "show-output", false, "-- COMMAND only: pass the command's output to stderr (default: discarded)")
	f.StringVar(&req.Variant, "variant", "baseline", "built-in workload: the variant the migration is applied to ("+strings.Join(refreshtoken.Variants, "|")+")")
	f.AddFlagSet(workloadFlags(wl, "built-in workload: "))
	f.IntVar(&req.Concurrency, "concurrency", req.Concurrency, "built-in workload: workers, each on its own connection")
	f.StringArrayVar(&req.Downs, "down", nil, "-- COMMAND only: SQL file or directory that undoes the migration, applied after measuring (repeatable; a directory's *.down.sql in reverse name order)")
	f.BoolVar(&req.Clone, "clone", false, "-- COMMAND only, PostgreSQL: measure on throwaway copies of the database (CREATE DATABASE … TEMPLATE), dropped afterwards; needs CREATEDB and no other session on the database")
	f.BoolVar(&req.KeepMigration, "keep-migration", false, "-- COMMAND only: leave the migration (and --schema) applied instead of undoing them")
	f.IntVar(&req.Repeat, "repeat", 1, "measure each side N times on a fresh state; budgets judge the median and show the spread")
	f.BoolVarP(&quiet, "quiet", "q", false, "no progress or notes on stderr")
	return cmd
}
