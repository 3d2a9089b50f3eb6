package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/reports"
)

func newMeasureCmd(a *app) *cobra.Command {
	var (
		dsn, format, output, label, opName string
		schemas, tables                    []string
		ops                                int64
		quiet, vacuum                      bool
		interval                           time.Duration
		createStatements                   bool
		waits                              bool
		nodeDSNs                           []string
		checkpoint                         string
	)
	cmd := &cobra.Command{
		Use:   "measure --dsn URL [flags] -- COMMAND [ARGS...]",
		Short: "Measure what any command's writes cost: snapshot, run it, snapshot, diff",
		Long: `measure wraps a workload writeamp did not write (pgbench, a migration, a test suite, a
batch job): it snapshots the server's counters, runs the command with its input and output
passed through, waits until the command's sessions have published their statistics,
snapshots again and reports the difference.

--schema and --table limit the tables and indexes shown; names are read as the database
reads them ("Quoted" ones exactly), and one that matches nothing is an error listing what
exists. On MySQL/MariaDB the default --schema is the DSN's database ('*': every database).
The database-wide numbers (log bytes, records, full-page images) always stay.

--checkpoint: before (default) opens the window right after a CHECKPOINT (full-page images of every
page); none without one; steady after a CHECKPOINT and a warm-up run of the command (twice in all).

Without --operations, per-unit figures are per row changed in the measured tables.
Exit status: the command's own when it fails (the report is still written), 2 when writeamp
cannot measure or for bad input; Ctrl-C stops the command and reports what was measured.
Reference: docs/cli/writeamp_measure.md, docs/concepts.md (windows, units, exit codes)`,
		Example: `  # pgbench's default TPC-B-like script, 2 clients x 500 transactions
  writeamp measure --dsn postgres://postgres@127.0.0.1:5432/bench -- pgbench -n -t 500 -c 2 bench
  # a migration, only its schema's tables shown, saved as JSON
  writeamp measure --dsn "$DSN" --schema app --label v42 --format json -o v42.json -- ./migrate up
  # per transaction rather than per row changed
  writeamp measure --dsn "$DSN" --operations 1000 --operation-name transactions -- pgbench -n -t 500 -c 2 bench`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("name the command to measure after --, e.g. writeamp measure --dsn URL -- pgbench -n -t 1000 mydb")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if ops < 0 {
				return usagef("--operations: must be 0 (none) or more")
			}
			if err := measure.CheckCheckpoint("--checkpoint", checkpoint); err != nil {
				return usageError{err}
			}
			if err := checkNodes(nodeDSNs); err != nil {
				return err
			}
			if err := measure.CheckInterval("--interval", interval); err != nil {
				return usageError{err}
			}
			log := a.notes(quiet)
			ctx := cmd.Context()
			t, err := connect(ctx, sourceOf(dsn), embedOpts{Allow: false}, log)
			if err != nil {
				return err
			}
			defer t.Close()
			scope, err := resolveScope(ctx, t, measure.DefaultScope(t.Server, collectors.Scope{Schemas: schemas, Tables: tables}))
			if err != nil {
				return err
			}
			win, err := t.measuredWindow(log, waits)
			if err != nil {
				return err
			}
			win.CreateStatements = createStatements
			fmt.Fprintf(log, "measuring on %s (%s)\n", t.Server, t.Where)
			live := newLiveLine(cmd.ErrOrStderr(), stderrIsTerminal(), quiet)
			defer live.clear()
			if tl := timelineFor(interval, live); tl != nil {
				win.Observers = append(win.Observers, tl)
			}
			nodes, closeNodes, err := openNodes(ctx, nodeDSNs, schemas, tables, waits, log)
			defer closeNodes()
			if err != nil {
				return err
			}
			w := &measure.Wrapped{
				Nodes:  nodes,
				Window: win, Command: args, Label: label,
				Scope:      scope,
				Operations: ops, OperationName: opName, Vacuum: vacuum,
				Checkpoint: checkpoint,
				Stdin:      cmd.InOrStdin(), Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr(),
			}
			// The command's output shares stdout with the report: the report
			// goes after it, or to --output.
			res, code, err := w.Run(ctx)
			live.clear()
			if err != nil {
				return err
			}
			if err := emit(cmd, format, output, res); err != nil {
				return err
			}
			if code != 0 {
				// main exits with the command's own status, so scripts and CI
				// see the workload's failure as if it had run unwrapped.
				return exitError{code: code, err: fmt.Errorf("the measured command exited with status %d (the report above covers what it did)", code)}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.SetInterspersed(false) // everything after the first argument belongs to the command
	f.StringVar(&dsn, "dsn", "", "database URL (default: WRITEAMP_DSN, DATABASE_URL or PG* variables)")
	listFlag(f, &schemas, "schema", "", nil, "only show tables and indexes in these schemas (repeatable; '*': all)")
	listFlag(f, &tables, "table", "", nil, "only show these tables and their indexes (name or schema.name; repeatable)")
	f.StringVar(&label, "label", "", "name of this run in reports (default: the command's name)")
	f.Int64Var(&ops, "operations", 0, "operations the command performed, to normalize by (default: per row changed)")
	f.StringVar(&opName, "operation-name", "operations", "what one --operations is called, plural (e.g. transactions)")
	formatFlag(cmd, &format, reports.Formats)
	pushFlag(cmd)
	f.StringVarP(&output, "output", "o", "", "write the report to this file instead of stdout (after the command's output)")
	f.StringVar(&checkpoint, "checkpoint", measure.Checkpoints[0], "where the window opens: before|none|steady (see above)")
	f.BoolVar(&vacuum, "vacuum", false, "after the command, VACUUM the measured tables and measure it (not InnoDB)")
	f.BoolVarP(&quiet, "quiet", "q", false, "no notes on stderr")
	intervalFlag(f, &interval)
	waitsFlag(f, &waits)
	statementsFlag(f, &createStatements)
	nodeFlag(f, &nodeDSNs)
	return cmd
}
