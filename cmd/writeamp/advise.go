package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/spf13/cobra"

	"github.com/writeamp/writeamp/advise"
	"github.com/writeamp/writeamp/check"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

func newAdviseCmd(ap *app) *cobra.Command {
	wl := refreshtoken.New(refreshtoken.DefaultParams())
	wl.P.Logins = 300
	req := check.Request{Workload: wl, Concurrency: 1, Repeat: 1}
	var (
		dsn, format, output, outDir, copyMax string
		quiet                                bool
		maxCands                             int
		budget                               time.Duration
	)
	cmd := &cobra.Command{
		Use:   "advise [--dsn URL] [flags] [-- COMMAND [ARG]...]",
		Short: "Which index change would save what? Propose changes and measure each on a copy",
		Long: `advise measures the workload in one window on a copy of the database (the diagnose
window), proposes index and table changes as up/down migrations, measures each with the
same workload on fresh copies (check's machinery: the database itself is never written)
and ranks them by the log bytes per operation they saved.

Candidates (PostgreSQL and MariaDB/MySQL; SQL Server and Oracle are not advised yet):
  - drop an index the workload never read (no scan in the window, none on the database
    since its statistics reset) that backs no constraint;
  - drop an index another duplicates (same leading key columns);
  - drop an index whose key holds a column the workload's UPDATEs set (it makes every
    update non-HOT); on the built-in workload, the application-side fix is noted too;
    on PostgreSQL 16+ also its replacement by a BRIN index (summarizing: updates stay HOT);
  - a lower fillfactor (90, 70) on a table whose updates moved rows to other pages.
Each is measured: log bytes, index entries and pages touched per operation, the table's
HOT ratio, throughput, with exactness and source; risks name the reads and constraints.
The workload is the built-in Keycloak refresh-token one (its flags say built-in), or
-- COMMAND measured on copies (CREATE DATABASE … TEMPLATE, else a scratch server).
A candidate that fails to apply is reported with its error and skipped.
Reference: docs/cli/writeamp_advise.md, docs/advise.md (what is measured, the JSON)`,
		Example: `  # your workload, on copies of the database
  writeamp advise --dsn "$DSN" -- pgbench -n -c 4 -t 5000 "$DSN"
  # the built-in workload; migrations ready for writeamp check
  writeamp advise --dsn "$DSN" --variant baseline --out-dir advice/ --format json -o advice.json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			command, err := check.CommandAfterDash(args, cmd.ArgsLenAtDash())
			if err != nil {
				return usageError{err}
			}
			req.Command = command
			if copyMax != "" {
				n, err := humanize.ParseBytes(copyMax)
				if err != nil || n == 0 {
					return usagef("--copy-max-size %q: give a size such as 2GiB or 500MB", copyMax)
				}
				req.CopyMaxSize = int64(n)
			}
			if maxCands < 1 {
				return usagef("--max-candidates %d: give at least 1", maxCands)
			}
			if budget < 0 {
				return usagef("--time-budget %v: give a duration such as 20m (0: no limit)", budget)
			}
			src := sourceOf(dsn)
			if src.embedded && command != nil {
				return usagef("-- COMMAND needs --dsn (or WRITEAMP_DSN, DATABASE_URL, PG*): the command must reach the database advise measures")
			}
			dir, err := os.MkdirTemp("", "writeamp-advise-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			// The request is checked now, with a migration that changes
			// nothing, so that bad input is refused before anything connects.
			probe := req
			probe.Migrations, probe.ReportOnly = []string{filepath.Join(dir, "probe.sql")}, true
			if err := os.WriteFile(probe.Migrations[0], []byte("SELECT 1;\n"), 0o600); err != nil {
				return err
			}
			if _, err := probe.Gate(); err != nil {
				return usageError{err}
			}
			if ap.beforeConnect != nil && command == nil {
				ap.beforeConnect(wl)
			}
			open := fitProcs(ap, req.Concurrency, src)
			log := ap.notes(quiet)
			ctx := cmd.Context()
			t, err := connect(ctx, src, embedOpts{Allow: command == nil}, log, open)
			if err != nil {
				return exitError{code: exitUsage, err: err}
			}
			fmt.Fprintf(log, "advising on %s (%s)\n", t.Server, t.Where)
			dialect := t.Server.Dialect
			if dialect != "postgres" && dialect != "mysql" {
				t.Close()
				return usagef("advise proposes changes on PostgreSQL and MariaDB/MySQL; %s is not advised yet", t.Server)
			}
			a := &advise.Advisor{Base: req, MaxCandidates: maxCands, Budget: budget, Log: log}
			for _, v := range wl.Meta().Variants {
				if v != req.Variant && command == nil {
					a.OtherVariants = append(a.OtherVariants, v)
				}
			}
			if command != nil {
				orig, oerr := advise.ReadOriginal(ctx, t.DB, t.Server)
				a.Original = func(context.Context) (map[string]advise.Original, error) { return orig, oerr }
				ups, _ := check.UpdatesOfCommand(dialect, command)
				for _, u := range ups {
					a.Updates = append(a.Updates, advise.Update{Table: u.Table, Columns: u.Columns, Source: u.Source})
				}
				// Each measurement connects anew: copying closes writeamp's
				// own sessions on the database.
				t.Close()
				a.Measure = func(ctx context.Context, r check.Request) (*check.Outcome, error) {
					return adviseCopy(ctx, r, src, open)
				}
			} else {
				defer t.Close()
				t.DB.SetMaxOpenConns(req.Concurrency + 5)
				win, err := t.measuredWindow(io.Discard, true)
				if err != nil {
					return exitError{code: exitUsage, err: err}
				}
				a.Measure = func(ctx context.Context, r check.Request) (*check.Outcome, error) {
					g, err := r.Gate()
					if err != nil {
						return nil, err
					}
					g.Window, g.Log, g.OpenAs = win, io.Discard, t.openAs()
					return g.Run(ctx)
				}
			}
			rep, err := a.Run(ctx, dir)
			if err != nil {
				return exitError{code: exitUsage, err: fmt.Errorf("advise: %w", err)}
			}
			if outDir != "" {
				if err := advise.WriteMigrations(outDir, rep); err != nil {
					return exitError{code: exitUsage, err: err}
				}
			}
			var buf bytes.Buffer
			if err := advise.Render(&buf, rep, format, outputWidth(output)); err != nil {
				return err
			}
			return writeOutput(cmd.OutOrStdout(), "--output", output, buf.Bytes())
		},
	}
	f := cmd.Flags()
	f.StringVar(&dsn, "dsn", "", "database URL (else WRITEAMP_DSN, DATABASE_URL, PG*, or a throwaway PostgreSQL)")
	formatFlag(cmd, &format, advise.Formats)
	f.StringVarP(&output, "output", "o", "", "write the report to this file instead of stdout")
	f.StringVar(&outDir, "out-dir", "", "write each recommendation as NN_<name>.up.sql and .down.sql here")
	f.IntVar(&maxCands, "max-candidates", 5, "measure at most N candidate changes")
	f.DurationVar(&budget, "time-budget", 30*time.Minute, "measure no further candidate once this is spent (0: no limit)")
	f.StringVar(&copyMax, "copy-max-size", "", "-- COMMAND: the largest database advise copies (default 2GiB)")
	f.IntVar(&req.Repeat, "repeat", 1, "measure each side N times; the medians are compared")
	listFlag(f, &req.ScopeSchemas, "scope-schema", "", nil, "-- COMMAND: measure these schemas' tables (default: every user schema)")
	f.StringVar(&req.Variant, "variant", "baseline", "built-in: the variant to advise on: "+strings.Join(refreshtoken.Variants, "|"))
	f.AddFlagSet(workloadFlags(wl, "built-in: "))
	f.IntVar(&req.Concurrency, "concurrency", req.Concurrency, "built-in: workers, each on its own connection")
	f.BoolVarP(&quiet, "quiet", "q", false, "no progress or notes on stderr")
	return cmd
}

// adviseCopy is one report-only check of a wrapped command on copies of
// the database, connected for it alone.
func adviseCopy(ctx context.Context, r check.Request, src source, open dialects.OpenOption) (*check.Outcome, error) {
	g, err := r.Gate()
	if err != nil {
		return nil, err
	}
	t, err := connect(ctx, src, embedOpts{}, io.Discard, open)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	t.DB.SetMaxOpenConns(6)
	win, err := t.measuredWindow(io.Discard, true)
	if err != nil {
		return nil, err
	}
	g.Window, g.Log, g.OpenAs = win, io.Discard, t.openAs()
	cp, ok := g.Mode.(*check.Copy)
	if !ok {
		return nil, fmt.Errorf("advise measures a wrapped command on copies only")
	}
	closeCopy, err := wireCopy(ctx, cp, t, io.Discard, copyOpts{})
	if err != nil {
		return nil, err
	}
	defer closeCopy()
	return g.Run(ctx)
}
