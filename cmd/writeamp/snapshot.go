package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/measure"
)

func newSnapshotCmd(a *app) *cobra.Command {
	var (
		dsn, output     string
		schemas, tables []string
		checkpoint      bool
		holdWAL         bool
		enableMonitors  bool
		quiet           bool
		nodeDSNs        []string
	)
	cmd := &cobra.Command{
		Use:   "snapshot --dsn URL -o FILE",
		Short: "Save the server's write counters now, for a later `writeamp diff`",
		Long: `snapshot reads every collector once, in a read-only transaction, and saves the reading
with the server's identity and start time. Take one before and one after a workload
writeamp cannot wrap (a deploy, a nightly job, traffic you only observe), then run
writeamp diff on the two files; diff refuses snapshots of different servers or databases
and across a restart or failover.

--checkpoint runs CHECKPOINT first (PostgreSQL), so full-page images start from zero as
in run and measure. --enable-monitors (MySQL/MariaDB) turns on the InnoDB monitors that
are off (page splits, merges, transactions) for the window; diff --dsn turns them off
again, as they were. On MySQL/MariaDB the default --schema is the DSN's database.
Reference: docs/cli/writeamp_snapshot.md, docs/concepts.md (windows)`,
		Example: `  writeamp snapshot --dsn postgres://postgres@db:5432/app -o before.json
  ./nightly-job
  writeamp snapshot --dsn postgres://postgres@db:5432/app -o after.json
  writeamp diff --dsn postgres://postgres@db:5432/app before.json after.json

  writeamp snapshot --dsn mysql://root@db:3306/app --enable-monitors -o before.json
  writeamp snapshot --dsn mysql://root@db:3306/app -o after.json
  writeamp diff --dsn mysql://root@db:3306/app before.json after.json   # turns the monitors off again`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if output == "" {
				return usagef("-o/--output: name the file to write the snapshot to (- for stdout)")
			}
			if err := checkNodes(nodeDSNs); err != nil {
				return err
			}
			log := a.notes(quiet)
			ctx := cmd.Context()
			t, err := connect(ctx, sourceOf(dsn), embedOpts{Allow: false}, log)
			if err != nil {
				return err
			}
			defer t.Close()
			win, err := t.window(log)
			if err != nil {
				return err
			}
			if enableMonitors {
				if _, ok := t.Dialect.(dialects.StatefulInstrumenter); !ok {
					return usagef("--enable-monitors: %s has no monitors to enable (MySQL/MariaDB only)", t.Server)
				}
			}
			scope, err := resolveScope(ctx, t, measure.DefaultScope(t.Server, collectors.Scope{Schemas: schemas, Tables: tables}))
			if err != nil {
				return err
			}
			file, abandon, err := win.TakeSnapshot(ctx, measure.SnapshotOptions{Scope: scope, Checkpoint: checkpoint,
				HoldWAL: holdWAL, EnableMonitors: enableMonitors, Where: t.Where, AfterInstrument: a.afterInstrument})
			if err != nil {
				return err
			}
			for i, nd := range nodeDSNs {
				nf, err := snapshotNode(ctx, i+1, nd, schemas, tables, log)
				if err != nil {
					abandon()
					return err
				}
				file.Nodes = append(file.Nodes, nf)
			}
			b, err := file.Bytes()
			if err == nil {
				err = writeOutput(cmd.OutOrStdout(), "--output", output, b)
			}
			if err != nil {
				abandon() // no file, so no diff would ever undo what the window set up
				return err
			}
			snap := file.Snapshot
			if slot := snap.Marks[dialects.MarkWALSlot]; slot != "" {
				fmt.Fprintf(log, "replication slot %s keeps the server's WAL from this snapshot on, so a diff can read the window however long it is: `writeamp diff --dsn …` drops it after reading (or SELECT pg_drop_replication_slot('%s'))\n", slot, slot)
			}
			if file.Instrumented != "" {
				fmt.Fprintln(log, "note: the InnoDB monitors stay on for the window: writeamp diff --dsn ... turns them off again")
			}
			fmt.Fprintf(log, "snapshot of %s taken at %s: %d counters, %d objects\n", t.Server, snap.TakenAt.Format("2006-01-02 15:04:05 MST"), len(snap.Counters), len(snap.Objects))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dsn, "dsn", "", "database URL (default: WRITEAMP_DSN, DATABASE_URL or PG* variables)")
	f.StringVarP(&output, "output", "o", "", "file to write the snapshot to (- for stdout)")
	listFlag(f, &schemas, "schema", "", nil, "only read tables and indexes in these schemas ('*': all)")
	listFlag(f, &tables, "table", "", nil, "only read these tables and their indexes (name or schema.name)")
	f.BoolVar(&checkpoint, "checkpoint", false, "run CHECKPOINT before reading (PostgreSQL; needs pg_checkpoint or superuser)")
	f.BoolVar(&holdWAL, "hold-wal", true, "PostgreSQL: keep the WAL until diff --dsn reads it (a slot; needs REPLICATION)")
	f.BoolVar(&enableMonitors, "enable-monitors", false, "MySQL/MariaDB: turn on the InnoDB monitors that are off, until diff --dsn")
	f.BoolVarP(&quiet, "quiet", "q", false, "no notes on stderr")
	nodeFlag(f, &nodeDSNs)
	return cmd
}

// snapshotNode reads --node number i into the same file, with the same
// scope flags; diff reports it as node<i> beside the main reading.
func snapshotNode(ctx context.Context, i int, dsn string, schemas, tables []string, log io.Writer) (*measure.SnapshotFile, error) {
	t, err := connect(ctx, nodeSource(dsn), embedOpts{Allow: false}, log)
	if err != nil {
		return nil, fmt.Errorf("--node %d: %w", i, err)
	}
	defer t.Close()
	sc, err := resolveScope(ctx, t, measure.DefaultScope(t.Server, collectors.Scope{Schemas: schemas, Tables: tables}))
	if err != nil {
		return nil, fmt.Errorf("--node %d: %w", i, err)
	}
	win, err := t.window(log)
	if err != nil {
		return nil, err
	}
	label := fmt.Sprintf("node%d", i)
	fmt.Fprintf(log, "also reading %s: %s (%s)\n", label, t.Server, t.Where)
	return win.TakeNodeSnapshot(ctx, label, sc, t.Where)
}
