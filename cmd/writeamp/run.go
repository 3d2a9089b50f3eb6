package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/reports"
	"github.com/writeamp/writeamp/result"
	"github.com/writeamp/writeamp/workloads"
)

// defaultWorkload is what `writeamp run` measures when no workload is named.
const defaultWorkload = "refresh-token"

// newRunCmd is `writeamp run`, driven from the workload registry: the
// default workload's command, with a subcommand per registered workload
// (`writeamp run refresh-token` is `writeamp run`).
func newRunCmd(a *app) *cobra.Command {
	cmd := newWorkloadRunCmd(a, "run", defaultWorkload)
	for _, name := range workloads.Names() {
		cmd.AddCommand(newWorkloadRunCmd(a, name, name))
	}
	return cmd
}

// newWorkloadRunCmd runs one workload: the runner's flags and the
// workload's own (workloads.Flagser), discovered, not listed here.
func newWorkloadRunCmd(a *app, use, name string) *cobra.Command {
	wl, err := workloads.New(name)
	if err != nil {
		panic(err) // a registration bug, not the user's
	}
	meta := wl.Meta()
	var (
		dsn, format, output string
		pgBin               string
		variants            []string
		keep, quiet, noPipe bool
		vacuum              bool
		concurrency         string
		interval            time.Duration
		createStatements    bool
		waits               bool
		nodeDSNs            []string
	)
	cmd := &cobra.Command{
		Use:   use,
		Short: "Run the " + name + " workload on each variant and compare what it cost",
		Long:  meta.Description,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			followHeap(cmd.Context())
			levels, err := parseLevels(concurrency)
			if err != nil {
				return usageError{err}
			}
			if err := measure.CheckInterval("--interval", interval); err != nil {
				return usageError{err}
			}
			if fl, ok := wl.(workloads.Flagser); ok {
				if err := fl.Validate(); err != nil {
					return usageError{err}
				}
				// A flag can add a variant (refresh-token's --variant-file):
				// run it too unless --variants picks.
				meta = wl.Meta()
				if !cmd.Flags().Changed("variants") {
					variants = meta.Variants
				}
			}
			if len(variants) == 0 {
				return usagef("--variants: name at least one of %s", strings.Join(meta.Variants, ", "))
			}
			for _, v := range variants {
				if !slices.Contains(meta.Variants, v) {
					return usagef("--variants: unknown variant %q (known: %s)", v, strings.Join(meta.Variants, ", "))
				}
			}
			src := sourceOf(dsn)
			bin, err := pgBinOf(pgBin, src)
			if err != nil {
				return err
			}
			if a.beforeConnect != nil {
				a.beforeConnect(wl)
			}
			top := slices.Max(levels)
			open := fitProcs(a, top, src)
			log := a.notes(quiet)
			ctx := cmd.Context()
			if err := checkNodes(nodeDSNs); err != nil {
				return err
			}
			t, err := connect(ctx, src, embedOpts{Allow: true, Bin: bin}, log, open)
			if err != nil {
				return err
			}
			defer t.Close()
			if err := refuseReplica(t); err != nil {
				return err
			}
			// Workers, plus the sessions that hold the schema's lock and the
			// window's instrumentation for the whole run, plus snapshots.
			t.DB.SetMaxOpenConns(top + 3)
			t.DB.SetMaxIdleConns(top + 3)
			win, err := t.measuredWindow(log, waits)
			if err != nil {
				return err
			}
			win.CreateStatements = createStatements
			if tl := timelineFor(interval, nil); tl != nil {
				win.Observers = append(win.Observers, tl)
			}
			t.DB.SetMaxOpenConns(top + 3 + len(win.Observers)) // each observer reads on a connection of its own
			fmt.Fprintf(log, "measuring on %s (%s)\n", t.Server, t.Where)
			nodes, closeNodes, err := openNodes(ctx, nodeDSNs, nil, nil, waits, log)
			defer closeNodes()
			if err != nil {
				return err
			}
			var res *result.Result
			var runErr error
			// A sweep is one experiment per level: each level's runs are
			// columns of the same report, labelled with their level.
			for _, level := range levels {
				exp := &measure.Experiment{
					Window: win, Workload: wl, Variants: variants, Keep: keep,
					Concurrency: level, NoPipeline: noPipe, Progress: progressFor(!quiet), Vacuum: vacuum,
					Nodes: nodes,
				}
				if len(levels) > 1 {
					fmt.Fprintf(log, "concurrency %d\n", level)
				}
				r, err := exp.Run(ctx)
				res = sweepMerge(res, r, level, len(levels) > 1)
				if err != nil {
					runErr = err
					break
				}
			}
			if res != nil && len(levels) > 1 {
				res.Workload.Params["concurrency"] = concurrency
			}
			if res != nil && len(res.Runs) > 0 {
				if err := emit(cmd, format, output, res); err != nil {
					return err
				}
			}
			return runErr
		},
	}
	if d, ok := wl.(workloads.Documenter); ok {
		cmd.Long, cmd.Example = d.Doc()
	}
	page := "writeamp_run.md"
	if use != "run" {
		page = "writeamp_run_" + use + ".md"
	}
	cmd.Long += "\nReference: docs/cli/" + page
	if doc, ok := workloadDocs[name]; ok {
		cmd.Long += ", " + doc
	}
	f := cmd.Flags()
	f.StringVar(&dsn, "dsn", "", "database URL (else WRITEAMP_DSN, DATABASE_URL, PG*, or a throwaway PostgreSQL)")
	f.StringVar(&pgBin, "pg-bin", "", "bin directory of the throwaway PostgreSQL (else WRITEAMP_PG_BIN, the newest)")
	f.AddFlagSet(workloadFlags(wl, ""))
	f.StringVar(&concurrency, "concurrency", "1", "workers, each on its own connection; 1,8,32 sweeps the levels")
	listFlag(f, &variants, "variants", "", meta.Variants, "variants to measure, in order: "+strings.Join(meta.Variants, ","))
	formatFlag(cmd, &format, reports.Formats)
	pushFlag(cmd)
	f.StringVarP(&output, "output", "o", "", "write the report to this file instead of stdout")
	f.BoolVar(&noPipe, "no-pipeline", false, "send each statement and wait for it (default: pipeline per transaction)")
	f.BoolVar(&vacuum, "vacuum", false, "VACUUM the tables after each window and measure it (not InnoDB)")
	f.BoolVar(&keep, "keep", false, "keep the workload's schema after the run for inspection")
	f.BoolVarP(&quiet, "quiet", "q", false, "no progress or notes on stderr")
	intervalFlag(f, &interval)
	waitsFlag(f, &waits)
	statementsFlag(f, &createStatements)
	nodeFlag(f, &nodeDSNs)
	_ = cmd.RegisterFlagCompletionFunc("variants", cobra.FixedCompletions(meta.Variants, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// workloadFlags are a workload's own flags (none when it has no knobs),
// each usage led by prefix ("built-in workload: " in check).
func workloadFlags(wl workloads.Workload, prefix string) *pflag.FlagSet {
	fl, ok := wl.(workloads.Flagser)
	if !ok {
		return pflag.NewFlagSet("none", pflag.ContinueOnError)
	}
	fs := fl.Flags()
	fs.VisitAll(func(f *pflag.Flag) { f.Usage = prefix + f.Usage })
	return fs
}

// workloadDocs is the docs/ page of a built-in workload, named at the end
// of its help.
var workloadDocs = map[string]string{defaultWorkload: "docs/keycloak.md (the experiment and its knobs)"}

// parseLevels reads --concurrency: one level, or a comma-separated sweep.
func parseLevels(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("--concurrency: %q is not a number of workers (1 or more; a sweep is 1,8,32)", strings.TrimSpace(f))
		}
		if err := workloads.CheckConcurrency(n); err != nil {
			return nil, err
		}
		if slices.Contains(out, n) {
			return nil, fmt.Errorf("--concurrency: level %d given twice", n)
		}
		out = append(out, n)
	}
	return out, nil
}

// sweepMerge adds one level's runs to the sweep's result; with several
// levels every run says its level in its label and in the JSON.
func sweepMerge(acc, r *result.Result, level int, sweep bool) *result.Result {
	if r == nil {
		return acc
	}
	for i := range r.Runs {
		if sweep {
			r.Runs[i].Concurrency = level
			r.Runs[i].Label = fmt.Sprintf("%s c=%d", r.Runs[i].Variant, level)
		}
	}
	if acc == nil {
		return r
	}
	acc.Runs = append(acc.Runs, r.Runs...)
	for _, n := range r.Notes {
		if !slices.Contains(acc.Notes, n) {
			acc.Notes = append(acc.Notes, n)
		}
	}
	return acc
}
