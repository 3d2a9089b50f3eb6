package main

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/writeamp/writeamp/budget"
	"github.com/writeamp/writeamp/check"
	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/internal/safeio"
	"github.com/writeamp/writeamp/reports"
	"github.com/writeamp/writeamp/workloads"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

func newCheckCmd() *cobra.Command {
	wl := refreshtoken.New(refreshtoken.DefaultParams())
	wl.P.Logins = 300
	concurrency := 1
	var (
		dsn, format, output, junit, resultFile, variant string
		schemas, migrations, budgets, scope             []string
		quiet, showOutput                               bool
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
			var command []string
			if dash := cmd.ArgsLenAtDash(); dash >= 0 {
				if dash > 0 {
					return usagef("unexpected arguments before --: %s (the workload command goes after --)", strings.Join(args[:dash], " "))
				}
				command = args[dash:]
				if len(command) == 0 {
					return usagef("nothing after --: give the workload command, e.g. -- psql \"$DSN\" -f work.sql")
				}
			} else if len(args) > 0 {
				return usagef("unexpected arguments %s: put the workload command after --", strings.Join(args, " "))
			}
			switch format {
			case "table", "markdown", "json":
			default:
				return usagef("--format: unknown format %q (use one of: table, markdown, json)", format)
			}
			if len(migrations) == 0 {
				return usagef("--migration is required: the SQL file(s) or directory to check")
			}
			bs, err := budget.ParseAll(budgets)
			if err != nil {
				return usageError{err}
			}
			if err := budget.CheckMetrics(bs); err != nil {
				return usageError{err}
			}
			if command == nil {
				if err := wl.Validate(); err != nil {
					return usageError{err}
				}
				if err := workloads.CheckConcurrency(concurrency); err != nil {
					return usageError{err}
				}
				if !slices.Contains(refreshtoken.Variants, variant) {
					return usagef("--variant: unknown variant %q (known: %s)", variant, strings.Join(refreshtoken.Variants, ", "))
				}
				if len(scope) > 0 {
					return usagef("--scope-schema is for -- COMMAND; the built-in workload measures its own schema")
				}
			}
			schemaFiles, err := check.LoadFiles("--schema", schemas)
			if err != nil {
				return usageError{err}
			}
			migFiles, err := check.LoadFiles("--migration", migrations)
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
			t.DB.SetMaxOpenConns(concurrency + 4) // workers, schema lock, instrumentation, snapshots, migration
			fmt.Fprintf(log, "checking on %s (%s)\n", t.Server, t.Where)
			win, err := t.window(log)
			if err != nil {
				return exitError{code: exitUsage, err: err}
			}
			g := &check.Gate{Window: win, Schema: schemaFiles, Migration: migFiles, Budgets: bs,
				Command: command, Scope: collectors.Scope{Schemas: scope}, Params: wl.P, Concurrency: concurrency, Variant: variant, Log: log,
				Progress: progressFor(!quiet)}
			if showOutput {
				g.CommandOutput = os.Stderr
			}
			out, runErr := g.Run(ctx)
			if junit != "" {
				var jb bytes.Buffer
				if err := out.JUnit(&jb, runErr); err != nil {
					return err
				}
				if err := writeOutput(cmd.OutOrStdout(), "--junit", junit, jb.Bytes()); err != nil {
					return err
				}
			}
			if runErr != nil {
				if path := os.Getenv("GITHUB_STEP_SUMMARY"); path != "" {
					if err := appendText(path, "### writeamp check: could not measure\n\n"+runErr.Error()+"\n"); err != nil {
						fmt.Fprintf(log, "warning: GITHUB_STEP_SUMMARY: %v\n", err)
					}
				}
				for _, w := range out.Static {
					fmt.Fprintln(cmd.ErrOrStderr(), "warning: "+w.Text)
				}
				return exitError{code: exitUsage, err: runErr}
			}
			var buf bytes.Buffer
			if format == "json" {
				if err := out.JSON(&buf); err != nil {
					return err
				}
			} else {
				if err := reports.Render(&buf, format, out.Result, reports.Options{}); err != nil {
					return err
				}
				out.RenderVerdicts(&buf, format == "markdown")
			}
			if err := writeOutput(cmd.OutOrStdout(), "--output", output, buf.Bytes()); err != nil {
				return err
			}
			if resultFile != "" {
				var rb bytes.Buffer
				if err := reports.JSON(&rb, out.Result); err != nil {
					return err
				}
				if err := writeOutput(cmd.OutOrStdout(), "--result", resultFile, rb.Bytes()); err != nil {
					return err
				}
			}
			if path := os.Getenv("GITHUB_STEP_SUMMARY"); path != "" {
				if err := appendStepSummary(path, out); err != nil {
					fmt.Fprintf(log, "warning: GITHUB_STEP_SUMMARY: %v\n", err)
				}
			}
			switch out.Exit() {
			case 1:
				return exitError{code: exitBudget, err: fmt.Errorf("%s", strings.TrimPrefix(out.Headline(), "writeamp check: "))}
			case 2:
				return exitError{code: exitUsage, err: fmt.Errorf("%s", strings.TrimPrefix(out.Headline(), "writeamp check: "))}
			}
			fmt.Fprintln(log, out.Headline())
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dsn, "dsn", "", "database URL; default: WRITEAMP_DSN, DATABASE_URL, PG* variables, else a throwaway local PostgreSQL")
	f.StringArrayVar(&schemas, "schema", nil, "SQL file or directory to start from, applied before the first measurement (repeatable)")
	f.StringArrayVar(&migrations, "migration", nil, "the migration: SQL file or directory of *.sql in name order (repeatable, in order)")
	f.StringArrayVar(&budgets, "budget", nil, "budget, e.g. 'log_bytes/op<=+5%' or 'hot_ratio>=0.9' (repeatable; see the grammar above)")
	f.StringVar(&format, "format", "table", "output format: table|markdown|json")
	f.StringVarP(&output, "output", "o", "", "write the report to this file instead of stdout")
	f.StringVar(&junit, "junit", "", "also write a JUnit XML report (one test case per budget) to this file")
	f.StringVar(&resultFile, "result", "", "also save the before/after result JSON (for writeamp plan) to this file")
	listFlag(f, &scope, "scope-schema", "", nil, "-- COMMAND only: measure the tables of these schemas (default: every user schema)")
	f.BoolVar(&showOutput, "show-output", false, "-- COMMAND only: pass the command's output to stderr (default: discarded)")
	f.StringVar(&variant, "variant", "baseline", "built-in workload: the variant the migration is applied to ("+strings.Join(refreshtoken.Variants, "|")+")")
	f.AddFlagSet(workloadFlags(wl, "built-in workload: "))
	f.IntVar(&concurrency, "concurrency", concurrency, "built-in workload: workers, each on its own connection")
	f.BoolVarP(&quiet, "quiet", "q", false, "no progress or notes on stderr")
	return cmd
}

func appendStepSummary(path string, out *check.Outcome) error {
	var buf bytes.Buffer
	if out.Result != nil {
		if err := reports.Render(&buf, "markdown", out.Result, reports.Options{}); err != nil {
			return err
		}
	}
	out.RenderVerdicts(&buf, true)
	return appendText(path, buf.String())
}

func appendText(path, text string) error { return safeio.Append(path, text) }

// exitError carries a specific exit code to main (check: 1 = a budget was
// exceeded, 2 = could not measure; doctor: 1 = something the refresh-token
// experiment needs is missing).
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }
