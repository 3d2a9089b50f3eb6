package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/spf13/cobra"

	"github.com/writeamp/writeamp/budget"
	"github.com/writeamp/writeamp/check"
	"github.com/writeamp/writeamp/check/ciout"
	"github.com/writeamp/writeamp/internal/scratch"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

func newCheckCmd() *cobra.Command {
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
		Long: `check measures a workload, applies a migration, measures the same workload again,
compares the two side by side, holds the difference against budgets, and leaves the
database as it was before check ran.

Workload:
  - the built-in refresh-token workload (default; --variant and its knobs), on every
    dialect. It runs in its own schema writeamp_rt_<run>_<variant> (MySQL/MariaDB: a
    database; Oracle: a user), and --schema and --migration run there, with
    unqualified table names (offline_user_session ...), as a login created for the
    run that owns that schema and holds no other privilege: the server itself refuses
    a statement that names anything else (exit 2, file, line and the server's words).
    PostgreSQL: a LOGIN role, search_path that schema alone (needs CREATEROLE);
    MySQL/MariaDB: an account granted only that database (needs CREATE USER and the
    grant option on writeamp_rt_*); SQL Server: a user without login that owns the
    schema, impersonated WITH NO REVERT (needs ALTER ANY USER and db_owner); Oracle:
    the workload's own user (needs ALTER USER, GRANT ANY PRIVILEGE). The login is
    dropped after the apply step, the schema after each measurement.
  - or -- COMMAND: run before and after the migration (psql -f work.sql, pgbench,
    your test suite ...), on copies of the database (below) unless --in-place.
    Per operation (/op) is per row written in the measured tables (inserted + updated
    + deleted) where the server counts rows per table: PostgreSQL always; MySQL and
    MariaDB with performance_schema table I/O (MySQL's default) or, on MariaDB,
    userstat = ON (TABLE_STATISTICS); SQL Server from its clustered indexes' leaf
    counts (derived). Otherwise (Oracle, MariaDB without either) /op is per command
    (each side's one run of the command), and the report and every /op budget say so.

Where -- COMMAND is measured:
  - by default on copies, so the migration never reaches the database: on PostgreSQL
    CREATE DATABASE ... TEMPLATE on its own server when no other session is connected
    to it (needs CREATEDB and to own it), else a scratch server started from this
    machine's binaries of the same major (or --pg-bin), on a free loopback port in a
    temporary directory, loaded with pg_dump | pg_restore --no-owner --no-privileges
    (objects owned by the DSN's user there, GRANTs not copied); on MariaDB/MySQL a
    scratch server (mariadbd/mysqld) loaded with mariadb-dump/mysqldump. The command
    reaches each copy through its arguments (the --dsn text replaced by the copy's)
    and PGHOST/PGPORT/PGDATABASE/PGUSER or MYSQL_HOST/MYSQL_TCP_PORT/MYSQL_PWD,
    WRITEAMP_CHECK_DSN, and every variable whose value is the --dsn text (WRITEAMP_DSN,
    DATABASE_URL, a config's dsn_env ...);
    a write that still reaches the database itself fails the check (exit 3, PostgreSQL).
    The copies and the scratch server are removed at the end, on failure and on
    signals too; the report states the method, the time and the disk. A database
    larger than --copy-max-size (default 2GiB) is refused before anything runs.
  - --in-place: apply, measure and undo on the database itself, for a disposable one
    (a CI service container) or one that cannot be copied. The proof below covers the
    catalog and the rows of the tables; it cannot cover what it does not read (other
    databases, server settings, files, effects outside the server), so use it only
    where a change it misses would not matter.

Leaving the database as it was (--in-place; the built-in workload needs none of this):
  - check undoes what it applied after measuring, the migration and then
    --schema: a file's "-- +goose Down" section, else NAME.down.sql next to NAME.sql
    or NAME.up.sql (golang-migrate, Flyway undo), else the inverse it can prove from
    the statements (CREATE TABLE/INDEX/VIEW/SEQUENCE/SCHEMA, MySQL routines and
    triggers, ADD COLUMN, named ADD CONSTRAINT/INDEX, RENAME; a table the same files
    create may be filled and altered). IF [NOT] EXISTS is settled by asking the catalog
    before anything is applied (PostgreSQL, MySQL/MariaDB): CREATE ... IF NOT EXISTS of
    an object already there does nothing and is not undone, of a missing one it is
    undone like CREATE; DROP ... IF EXISTS of a missing object does nothing, of one
    that is there it is a DROP. A migration it cannot undo (data changes to existing
    tables, ALTER ... TYPE, DROP, OR REPLACE ...) is refused before anything is applied
    (exit 2), naming the statements.
  - --down FILE|DIR: your undo of the migration instead (a directory: its *.down.sql,
    last first).
  - --clone (PostgreSQL): measure on throwaway copies instead (CREATE DATABASE ...
    TEMPLATE your database, STRATEGY FILE_COPY on 15+), one per side and repetition,
    each dropped right after, on failure and Ctrl-C too. Needs CREATEDB (and to own the
    database, or superuser) and no other session connected to it while it is copied;
    each copy costs the database's size in disk and its copy time, both reported. The
    command reaches the copy through its arguments (each --dsn text in them is replaced
    by the copy's) and PGDATABASE, WRITEAMP_CHECK_DSN and every variable whose value
    is the --dsn text. Each copy is marked as writeamp's (a comment on
    it) and the run holds a lock until its copies are dropped: copies a killed check
    left are listed by writeamp clean, and dropped by clean --drop once that lock is
    free and no session uses them.
  - --keep-migration: leave the migration (and --schema) applied, as asked.
  The restore is proved before it stays: the catalog (objects, columns, indexes,
  constraints; PostgreSQL also persistence, owners, privileges, RLS and policies,
  comments, sequence options, routine bodies, database/role settings) and a checksum
  of every table's rows are read just before and after the migration. A migration
  that changed nothing is not undone; on PostgreSQL the undo runs in one transaction
  that commits only when the catalog and the rows of tables there before are as
  before (else rolled back, and the undo the catalog difference proves is tried);
  on MySQL/MariaDB an undo that would drop, empty or write a table there before is
  refused before it runs. --down DIR runs only the downs of applied ups. What is
  not as it was is listed and the exit code is 3. The command's own writes to its
  data stay (they are your workload; --clone gives it fresh copies).
  One check at a time per database (a lock; a second waits 30 s, then exits 2 naming
  the first). Before applying, check writes writeamp_undo_<run> with the undo plan;
  after a kill -9, writeamp clean lists it, clean --drop finishes the undo with the
  same proof, and the next check refuses (exit 3) until then. SIGHUP, SIGQUIT,
  SIGTERM and SIGINT all undo; the command dies with writeamp (parent-death signal).

--repeat N measures each side N times, each on a fresh state (the migration undone
and applied again, a new schema or a new copy), alternating before and after. Budgets
judge the median of each counter and show each side's lowest and highest; a budget the
medians exceed while the two sides' ranges overlap (or, for an absolute threshold, a
repetition within it) is reported as inside the spread, not as a failure.

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
  index_entries/op[jobs]<=+0%    no more index entries per operation in all of jobs' indexes,
                                 whatever indexes the migration adds or drops
A table/index budget without [object] applies to every object that has the metric.
Budgets are checked before anything runs, exit 2: a ratio is a fraction (hot_ratio>=90
suggests 0.9), a byte metric's threshold needs its unit (+50 suggests +50B or +50%),
and at least one budget is needed unless --report-only. An [object] is looked up in the
database (or the built-in workload's objects) before the workload runs, with the closest
names suggested; one only the migration creates is judged on its value after it, and
under a relative budget it is reported as new (nothing before to compare), not failing.
Metrics are those of the result JSON. On PostgreSQL log_bytes is the whole cluster's
WAL in the window (other sessions included); log_bytes_in_scope counts only the
measured objects' transactions (pg_walinspect) and is the steadier one to budget.
On MySQL/MariaDB log_bytes is the server's redo (all sessions).

Before running, check warns when the migration indexes a column the workload
updates (on PostgreSQL those updates can no longer be HOT; on MySQL/MariaDB each
also rewrites an entry of that index: InnoDB has no HOT) and names the index, the
column and the statement. For -- COMMAND it reads the UPDATEs of *.sql files named
on the command line and of inline SQL.

Exit codes (the more severe wins): 0 within budget (or inside the spread), 1 a budget
exceeded, 2 bad input or could not measure (a migration check cannot undo, a failing
migration or command, one left inside an open transaction, a budget that could not be
evaluated, an output file that could not be written: the verdict and the restore then
go to stderr), 3 the database is not as it was (restore refused, failed or unproven).
Output: the comparison table, the restore and a verdict per budget (--format
table|markdown|json), --junit FILE for CI (a test case per budget and one for the
restore), and a Markdown summary appended to $GITHUB_STEP_SUMMARY when set.
Under GitHub Actions (GITHUB_ACTIONS=true) each failed budget and static warning is
also an ::error/::warning annotation at the migration statement's file and line;
--sarif FILE writes the same as SARIF 2.1.0 for code scanning; --format openmetrics
and --push URL give the metrics to Prometheus. A static warning is silenced by
"-- writeamp:allow index-on-updated-column reason: WHY" above its statement (a
suppression without a reason is exit 2, naming file:line).

Config: writeamp.yaml or .writeamp.yaml, from the working directory up to the
repository root, or --config FILE: dsn_env, migration, schema, workload, repeat,
budgets (per migration path glob, advisory or failing) and allow (suppressions with
reasons). Flags override it; --print-config prints the merged settings.
See docs/check-ci-example.md for a GitHub Actions workflow.`,
		Example: `  # built-in workload, migration on its session tables, on a throwaway PostgreSQL
  writeamp check --migration add_index.sql --budget 'hot_ratio>=0.9' --budget 'log_bytes/op<=+5%'

  # the built-in workload on MariaDB
  writeamp check --dsn mysql://root@localhost:3306/app --migration add_index.sql --budget 'log_bytes/op<=+10%'

  # your own workload; the migration is undone afterwards (its .down.sql, or the inverse)
  writeamp check --dsn postgres://ci@localhost:5432/app --schema base.sql \
    --migration migrations/ --budget 'hot_ratio>=0.9' -- psql "$DSN" -f work.sql

  # a data migration check cannot undo: on copies of the database, three times each side
  writeamp check --dsn "$DSN" --clone --repeat 3 --migration backfill.sql \
    --budget 'log_bytes/op<=+5%' -- psql "$DSN" -f work.sql

  # a PR comment and a JUnit report
  writeamp check --migration up.sql --budget 'leaf_inserts/op[idx_name]<=+0%' \
    --format markdown --output check.md --junit check.xml`,
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
			if _, _, embedded := resolveDSN(dsn); embedded && command != nil {
				return usagef("-- COMMAND needs --dsn (or WRITEAMP_DSN, DATABASE_URL, PG*): the command must reach the database check measures")
			}
			if beforeConnect != nil && command == nil {
				beforeConnect(wl)
			}
			fitProcs(req.Concurrency, dsn) // before connecting: it decides how connections wait
			log := notesWriter(quiet)
			ctx := cmd.Context()
			t, err := connect(ctx, dsn, embedOpts{Allow: true}, log)
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
			return ciout.Write(out, outputs, runErr)
		},
	}
	f := cmd.Flags()
	f.StringVar(&dsn, "dsn", "", "database URL; default: WRITEAMP_DSN, DATABASE_URL, PG* variables, else a throwaway local PostgreSQL")
	f.StringArrayVar(&req.Schemas, "schema", nil, "SQL file or directory to start from, applied before the first measurement (repeatable)")
	f.StringArrayVar(&req.Migrations, "migration", nil, "the migration: SQL file or directory of *.sql in name order (repeatable, in order)")
	f.StringArrayVar(&req.Budgets, "budget", nil, "budget, e.g. 'log_bytes/op<=+5%' or 'hot_ratio>=0.9' (repeatable; see the grammar above; at least one unless --report-only)")
	f.BoolVar(&req.ReportOnly, "report-only", false, "measure and report without a verdict: no budget needed, and every budget given is advisory (reported, never failing)")
	formatFlag(cmd, &outputs.Format, ciout.Formats)
	f.StringVarP(&outputs.Report, "output", "o", "", "write the report to this file instead of stdout")
	f.StringVar(&outputs.JUnit, "junit", "", "also write a JUnit XML report (one test case per budget) to this file (- for stdout)")
	pushVar(cmd, &outputs.Push)
	f.StringVar(&outputs.SARIF, "sarif", "", "also write a SARIF 2.1.0 log (failed budgets and static warnings at the migration's lines, for code scanning) to this file (- for stdout)")
	f.StringVar(&outputs.Result, "result", "", "also save the before/after result JSON (for writeamp plan) to this file (- for stdout)")
	listFlag(f, &req.ScopeSchemas, "scope-schema", "", nil, "-- COMMAND only: measure the tables of these schemas (default: every user schema)")
	f.BoolVar(&showOutput, "show-output", false, "-- COMMAND only: pass the command's output to stderr (default: discarded)")
	f.StringVar(&req.Variant, "variant", "baseline", "built-in workload: the variant the migration is applied to ("+strings.Join(refreshtoken.Variants, "|")+")")
	f.AddFlagSet(workloadFlags(wl, "built-in workload: "))
	f.IntVar(&req.Concurrency, "concurrency", req.Concurrency, "built-in workload: workers, each on its own connection")
	f.StringArrayVar(&req.Downs, "down", nil, "-- COMMAND only: SQL file or directory that undoes the migration, applied after measuring (repeatable; a directory's *.down.sql in reverse name order)")
	f.BoolVar(&req.InPlace, "in-place", false, "-- COMMAND only: apply, measure and undo the migration on the database itself instead of on copies (for a disposable database, or one that cannot be copied); see \"Where -- COMMAND is measured\" above")
	f.StringVar(&copyMax, "copy-max-size", "", "-- COMMAND only: the largest database check copies (default 2GiB); a larger one is refused before anything runs")
	f.StringVar(&pgBin, "pg-bin", "", "-- COMMAND only, PostgreSQL: the bin directory (initdb, postgres, pg_dump, pg_restore) of the scratch server the database is copied into when it cannot be copied on its own server; default: the binaries of the same major version found on this machine")
	f.BoolVar(&req.Clone, "clone", false, "-- COMMAND only, PostgreSQL: measure only on CREATE DATABASE … TEMPLATE copies on the database's own server (never a scratch server); needs CREATEDB and no other session on the database")
	f.BoolVar(&req.KeepMigration, "keep-migration", false, "-- COMMAND only: leave the migration (and --schema) applied instead of undoing them")
	f.IntVar(&req.Repeat, "repeat", 1, "measure each side N times on a fresh state; budgets judge the median and show the spread")
	f.DurationVar(&lockTimeout, "lock-timeout", check.DefaultLockTimeout, "longest wait of one statement of the migration or its undo for a lock another session holds (0: as long as the server lets it); the error names the blocking session")
	f.BoolVarP(&quiet, "quiet", "q", false, "no progress or notes on stderr")
	conf.flags(cmd)
	return cmd
}
