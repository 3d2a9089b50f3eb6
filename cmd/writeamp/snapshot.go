package main

import (
	"bytes"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/measure"
)

func newSnapshotCmd() *cobra.Command {
	var (
		dsn, output     string
		schemas, tables []string
		checkpoint      bool
		quiet           bool
	)
	cmd := &cobra.Command{
		Use:   "snapshot --dsn URL -o FILE",
		Short: "Save the server's write counters now, for a later `writeamp diff`",
		Long: `snapshot reads every collector once, in a read-only transaction, and saves the
reading with the server's identity and start time. Take one before and one
after a workload writeamp cannot wrap (a deploy, a nightly job, traffic you
only observe), then run writeamp diff on the two files.

diff refuses snapshots from different servers or databases, and across a
restart or failover (the counters would have been reset).

--checkpoint runs CHECKPOINT first (PostgreSQL), so full-page images in the
window start from zero as they do in writeamp run and measure.`,
		Example: `  writeamp snapshot --dsn postgres://postgres@db:5432/app -o before.json
  ./nightly-job
  writeamp snapshot --dsn postgres://postgres@db:5432/app -o after.json
  writeamp diff --dsn postgres://postgres@db:5432/app before.json after.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if output == "" {
				return usagef("-o/--output: name the file to write the snapshot to (- for stdout)")
			}
			log := notesWriter(quiet)
			ctx := cmd.Context()
			t, err := connect(ctx, dsn, false, log)
			if err != nil {
				return err
			}
			defer t.Close()
			set, err := collectors.For(t.Server.Dialect)
			if err != nil {
				return err
			}
			if checkpoint {
				if s, ok := t.Dialect.(dialects.Settler); ok {
					for _, w := range s.BeforeMeasure(ctx, t.DB, t.Server) {
						fmt.Fprintln(log, "warning: "+w)
					}
				}
			}
			scope, err := resolveScope(ctx, t, collectors.Scope{Schemas: schemas, Tables: tables})
			if err != nil {
				return err
			}
			snap, err := set.Take(ctx, t.DB, t.Server, scope)
			if err != nil {
				return err
			}
			for _, m := range snap.Missing {
				fmt.Fprintf(log, "note: not read: %s: %s\n", m.Collector, m.Reason)
			}
			var buf bytes.Buffer
			if err := measure.NewSnapshotFile(snap, t.Where).Write(&buf); err != nil {
				return err
			}
			if err := writeOutput(cmd.OutOrStdout(), "--output", output, buf.Bytes()); err != nil {
				return err
			}
			fmt.Fprintf(log, "snapshot of %s taken at %s: %d counters, %d objects\n", t.Server, snap.TakenAt.Format("2006-01-02 15:04:05 MST"), len(snap.Counters), len(snap.Objects))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dsn, "dsn", "", "database URL; default: WRITEAMP_DSN, DATABASE_URL or PG* variables")
	f.StringVarP(&output, "output", "o", "", "file to write the snapshot to (- for stdout)")
	listFlag(f, &schemas, "schema", "", nil, "only read tables and indexes in these schemas")
	listFlag(f, &tables, "table", "", nil, "only read these tables and their indexes (name or schema.name)")
	f.BoolVar(&checkpoint, "checkpoint", false, "run CHECKPOINT before reading (PostgreSQL; needs pg_checkpoint or superuser)")
	f.BoolVarP(&quiet, "quiet", "q", false, "no notes on stderr")
	return cmd
}
