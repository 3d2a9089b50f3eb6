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
		Short: "Project a measured result to a production rate: log GB/day, leaf writes/s, headroom against a log-rate ceiling",
		Long: `plan reads a result file (writeamp run/check --format json) and scales each variant
to a rate of the workload's main operation (refreshes for the refresh-token workload),
or of the operation named in --rate, keeping the measured mix of the others.

Per variant it prints the log (WAL, redo, transaction log) volume per operation as
measured, in MB/s and MiB/s, and in GB/day and GiB/day; index leaf inserts/s; rows
changed/s; and for each ceiling the share of it used and the rate at which it is
reached. Then the saving of each variant over the first in GB/day.

A result without operation counts (measure without --operations, diff) is scaled
per row changed (rows inserted + updated + deleted): give the rate as rows=2000/s
(or 2000/s); rows=N/s works on any result. Several rates at once, one column
each: --rate 100/s,500/s,2000/s.

Units: MB = 10^6 bytes, GB = 10^9 bytes, MiB = 2^20 bytes, GiB = 2^30 bytes; a day
is 86,400 s. The assumptions are printed under the numbers.

Ceilings: without --ceiling the published platform log-rate limits are shown (data
in capacity/ceilings.json: ` + strings.Join(capacity.CeilingNames(), ", ") + `).
--ceiling takes one of those names (per-vCore ones with --vcores) or a rate such as 50MiB/s.`,
		Example: `  writeamp run --format json --output r.json
  writeamp plan r.json --rate 500/s
  writeamp plan r.json --rate 30k/min --ceiling 50MiB/s
  writeamp plan r.json --rate logins=20/s --ceiling azure-sql-gp --vcores 4
  writeamp plan r.json --rate 100/s,500/s,2000/s
  writeamp measure --dsn "$DSN" --format json -o m.json -- pgbench -n -T 60 bench
  writeamp plan m.json --rate rows=2000/s
  writeamp plan r.json --rate 500/s --format markdown >> "$GITHUB_STEP_SUMMARY"`,
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
			if err := capacity.Render(&buf, format, res.Server.Dialect, p); err != nil {
				return err
			}
			if format != "json" {
				fmt.Fprintf(&buf, "\nfrom %s (%s, measured %s)\n", args[0], res.Server.Name, orUnknown(res.CreatedAt))
			}
			return writeOutput(cmd.OutOrStdout(), "--output", output, buf.Bytes())
		},
	}
	f := cmd.Flags()
	f.StringVar(&rateText, "rate", "", "rate of the main operation, OPERATION=RATE or rows=RATE (rows changed), several separated by commas: "+capacity.RateGrammar)
	listFlag(f, &ceilings, "ceiling", "", nil, "log-rate ceiling: a name ("+strings.Join(capacity.CeilingNames(), ", ")+") or a rate such as 50MiB/s; repeatable")
	f.IntVar(&vcores, "vcores", 0, "vCores for a per-vCore ceiling (azure-sql-gp, azure-sql-mi-bc); default: the ceiling's maximum")
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
