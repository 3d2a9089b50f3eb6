package main

import (
	"errors"
	"os"

	"github.com/spf13/cobra"

	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/reports"
)

func newDiffCmd(a *app) *cobra.Command {
	var (
		dsn, format, output, label string
		quiet                      bool
	)
	cmd := &cobra.Command{
		Use:   "diff BEFORE.json AFTER.json",
		Short: "Report what happened between two snapshots",
		Long: `diff subtracts two snapshot files (writeamp snapshot) and reports the result like run and
measure do. Counters that went down are reported as resets, never as negative numbers.
Snapshots of different servers or databases, or across a restart or failover, are refused.

Some numbers are read from the log between the snapshots (PostgreSQL: per-index leaf
inserts and per-object log bytes from pg_walinspect): they need --dsn while that log is
still on the server; without it the report lists them as not measured. --dsn also turns
off the InnoDB monitors snapshot --enable-monitors turned on. Elapsed is the time between
the snapshots; with no operation count, per-unit figures are per row changed.
Reference: docs/cli/writeamp_diff.md, docs/concepts.md (windows, units)`,
		Example: `  writeamp diff before.json after.json
  writeamp diff --dsn postgres://postgres@db:5432/app before.json after.json --format markdown
  writeamp diff before.json after.json --label nightly --format json -o nightly.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usagef("diff takes two snapshot files, the earlier first: writeamp diff before.json after.json")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			log := a.notes(quiet)
			// Reading holds up to about the files' size. The diff's peak,
			// both counter lists with the table of their differences, is
			// then well above what reading left (measured with make bench,
			// docs/performance.md).
			limitMemory(func() int64 { return filesSize(args...) * 6 / 5 })
			before, after, err := measure.ReadSnapshotPair(args[0], args[1])
			if err != nil {
				return usageError{err}
			}
			limitMemory(func() int64 { return heapLive() * 9 / 5 })
			in := measure.DiffInput{Before: before, After: after, Label: label, Log: log, Release: true, Version: toolVersion()}
			ctx := cmd.Context()
			if dsn != "" {
				t, err := connect(ctx, sourceOf(dsn), embedOpts{Allow: false}, log)
				if err != nil {
					return err
				}
				defer t.Close()
				if in.Window, err = t.window(log); err != nil {
					return err
				}
			}
			res, err := measure.DiffSnapshots(ctx, in)
			if errors.Is(err, measure.ErrMismatch) {
				return usageError{err}
			}
			if err != nil {
				return err
			}
			if err := measure.DiffNodes(ctx, in, res); err != nil {
				return err
			}
			return emit(cmd, format, output, res)
		},
	}
	f := cmd.Flags()
	f.StringVar(&dsn, "dsn", "", "the database the snapshots were taken on, to read the log between them")
	f.StringVar(&label, "label", "diff", "name of this window in reports")
	formatFlag(cmd, &format, reports.Formats)
	pushFlag(cmd)
	f.StringVarP(&output, "output", "o", "", "write the report to this file instead of stdout")
	f.BoolVarP(&quiet, "quiet", "q", false, "no notes on stderr")
	return cmd
}

// filesSize is the size of the files; one that cannot be read counts as
// empty (reading it says why).
func filesSize(paths ...string) int64 {
	var n int64
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil {
			n += st.Size()
		}
	}
	return n
}
