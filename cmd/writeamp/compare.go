package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/writeamp/writeamp/reports"
	"github.com/writeamp/writeamp/result"
)

func newCompareCmd() *cobra.Command {
	var (
		format, output string
		labels         []string
	)
	cmd := &cobra.Command{
		Use:   "compare A.json [B.json ...]",
		Short: "Put saved results side by side (run, measure or diff output)",
		Long: `compare reads result files written with --format json by run, measure or diff
and shows their runs side by side, with the change from the first column to
the last: the "before migration / after migration" table. It leads with the
findings, computed across the files: what changed beyond the runs' own noise.
One file shows its own runs (e.g. both variants of a run) in any --format.

Figures are normalized per operation when every run counts the same main
operation (e.g. per refresh), otherwise per row changed in the measured
tables (a wrapped command or a diff has no operation count).

Columns are labelled with --label, one per file in order, else with each
run's label or variant; a label that repeats gets its file name.
Reference: docs/cli/writeamp_compare.md, docs/concepts.md (findings, units)`,
		Example: `  writeamp run --variants baseline --format json -o base.json
  writeamp run --variants coarse --format json -o coarse.json
  writeamp compare base.json coarse.json
  writeamp compare r.json --format markdown >> "$GITHUB_STEP_SUMMARY"
  writeamp compare before.json after.json --label "before migration,after migration" --format html -o report.html`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 {
				return usagef("compare takes one or more result files: writeamp compare a.json b.json")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(labels) > 0 && len(labels) != len(args) {
				return usagef("--label: %d labels for %d files (give one per file, in order)", len(labels), len(args))
			}
			var in []reports.Input
			for i, path := range args {
				r, err := readResult(path)
				if err != nil {
					return usageError{err}
				}
				inp := reports.Input{Path: path, Result: r}
				if len(labels) > 0 {
					inp.Label = labels[i]
				}
				in = append(in, inp)
			}
			merged, err := reports.Merge(in)
			if err != nil {
				return usageError{err}
			}
			return emit(cmd, format, output, merged)
		},
	}
	f := cmd.Flags()
	labelFlag(f, &labels, "label", "column labels, one per file in order (comma-separated or repeated)")
	formatFlag(cmd, &format, reports.Formats)
	pushFlag(cmd)
	f.StringVarP(&output, "output", "o", "", "write the report to this file instead of stdout")
	return cmd
}

// readResult reads a result file and says plainly what else it might be.
func readResult(path string) (*result.Result, error) {
	r, err := result.Read(path)
	if err != nil {
		if errors.Is(err, result.ErrSnapshot) {
			return nil, fmt.Errorf("%s is a snapshot, not a result: turn two snapshots into a result with `writeamp diff before.json after.json --format json -o result.json`", path)
		}
		return nil, err
	}
	if len(r.Runs) == 0 {
		return nil, fmt.Errorf("%s: a writeamp result with no runs", path)
	}
	return r, nil
}
