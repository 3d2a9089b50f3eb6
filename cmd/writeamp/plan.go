package main

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/writeamp/writeamp/capacity"
	"github.com/writeamp/writeamp/result"
)

func newPlanCmd() *cobra.Command {
	var (
		rateText, format, output string
		ceilings                 []string
		replicas                 int
		network                  string
		vcores                   int
	)
	cmd := &cobra.Command{
		Use:   "plan RESULT.json --rate N/s",
		Short: "Project a measured result to a production rate: log GB/day, headroom against a log-rate ceiling",
		Long: `plan reads a result file (writeamp run/check/measure --format json) and scales each variant
to a rate of the workload's main operation (refreshes for the refresh-token workload), or
of the operation named in --rate, keeping the measured mix of the others; a result without
operation counts is scaled per row changed (--rate rows=2000/s). Several rates give a
column each: --rate 100/s,500/s,2000/s.

Per variant: the log volume (WAL, redo, transaction log) in MB/s, MiB/s, GB/day and
GiB/day, index leaf inserts/s and rows changed/s; for each ceiling the share used and the
rate that reaches it; then each variant's saving over the first. MB = 10^6 bytes, MiB =
2^20 bytes, a day 86,400 s; the assumptions are printed under the numbers.
--ceiling takes a rate such as 50MiB/s or a published platform limit (per-vCore ones with
--vcores); without it all are shown: ` + wrapHelp(strings.Join(capacity.CeilingNames(), ", ")+".", 90) + `
Reference: docs/cli/writeamp_plan.md, docs/concepts.md (units), docs/replication.md`,
		Example: `  writeamp run --format json --output r.json
  writeamp plan r.json --rate 500/s
  writeamp plan r.json --rate 30k/min --ceiling 50MiB/s
  writeamp plan r.json --rate logins=20/s --ceiling azure-sql-gp --vcores 4
  writeamp measure --dsn "$DSN" --format json -o m.json -- pgbench -n -T 60 bench
  writeamp plan m.json --rate rows=2000/s --format markdown >> "$GITHUB_STEP_SUMMARY"`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("plan needs exactly one result file (writeamp run --format json --output r.json), got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if rateText == "" {
				return usagef("--rate is required, e.g. --rate 500/s (%s)", capacity.RateGrammar)
			}
			rates, err := capacity.ParseRates(rateText)
			if err != nil {
				return usageError{err}
			}
			if vcores < 0 {
				return usagef("--vcores must be positive (got %d)", vcores)
			}
			var cs []capacity.Ceiling
			if len(ceilings) == 0 {
				if vcores > 0 {
					return usagef("--vcores needs --ceiling with a per-vCore limit (azure-sql-gp, azure-sql-mi-bc)")
				}
				cs = capacity.Ceilings()
			}
			for _, s := range ceilings {
				c, err := capacity.ResolveCeiling(s, vcores)
				if err != nil {
					return usageError{err}
				}
				cs = append(cs, c)
			}
			res, err := result.Read(args[0])
			if err != nil {
				return usageError{err}
			}
			p, err := capacity.ProjectRates(res, rates, cs)
			if err != nil {
				return usageError{fmt.Errorf("%s: %w", args[0], err)}
			}
			if err := addReplicas(cmd, p, res, replicas, network); err != nil {
				return err
			}
			var buf bytes.Buffer
			if err := capacity.RenderWidth(&buf, format, res.Server.Dialect, p, outputWidth(output)); err != nil {
				return err
			}
			if format != "json" {
				fmt.Fprintf(&buf, "\nfrom %s (%s, measured %s)\n", args[0], res.Server.Name, orUnknown(res.CreatedAt))
			}
			return writeOutput(cmd.OutOrStdout(), "--output", output, buf.Bytes())
		},
	}
	f := cmd.Flags()
	f.StringVar(&rateText, "rate", "", "rate such as 500/s, 30k/min, logins=20/s or rows=2000/s; several comma-separated")
	listFlag(f, &ceilings, "ceiling", "", nil, "log-rate ceiling: a platform's name (see above) or a rate such as 50MiB/s; repeatable")
	f.IntVar(&vcores, "vcores", 0, "vCores for a per-vCore ceiling (default: the ceiling's maximum)")
	replicasFlags(f, &replicas, &network)
	formatFlag(cmd, &format, planFormats)
	f.StringVarP(&output, "output", "o", "", "write to this file instead of stdout")
	_ = cmd.RegisterFlagCompletionFunc("ceiling", cobra.FixedCompletions(capacity.CeilingNames(), cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// planFormats are what capacity.Render writes.
var planFormats = []string{"table", "markdown", "json"}

func orUnknown(s string) string {
	if s == "" {
		return "at an unknown time"
	}
	return s
}
