package main

import (
	"io"
	"os"

	"github.com/spf13/cobra"

	// Dialects and their collectors register themselves.
	_ "github.com/writeamp/writeamp/collectors/mysql"
	_ "github.com/writeamp/writeamp/collectors/oracle"
	_ "github.com/writeamp/writeamp/collectors/postgres"
	_ "github.com/writeamp/writeamp/collectors/sqlserver"
	_ "github.com/writeamp/writeamp/dialects/mysql"
	_ "github.com/writeamp/writeamp/dialects/oracle"
	_ "github.com/writeamp/writeamp/dialects/postgres"
	_ "github.com/writeamp/writeamp/dialects/sqlserver"
	"github.com/writeamp/writeamp/workloads"
)

// app is what one invocation of the command tree shares: main builds it,
// a test builds its own, and every command's constructor takes it. Nothing
// a command sets or reads while it runs lives in a package variable, so
// tests run command trees beside each other without racing.
type app struct {
	// stderr takes the commands' notes and the signal handler's messages.
	stderr io.Writer
	// followWorkers lets run, check and advise set Go's Ps and the kernel
	// wait for their workers (fitProcs). Only the writeamp process does:
	// the tests run commands in-process, beside each other, and must not
	// set each other's GOMAXPROCS.
	followWorkers bool
	// beforeConnect, when set (FuzzCLIFlags), sees the workload a command
	// will run once its flags are parsed, before anything connects.
	beforeConnect func(workloads.Workload)
	// afterInstrument, when set, runs in snapshot between turning the
	// instrumentation on and writing the file: a test interrupts there.
	afterInstrument func()
}

// newRoot is the command tree as the tests run it in-process: notes on the
// process's stderr, Go's Ps left alone, no hooks.
func newRoot() *cobra.Command { return newRootFor(&app{stderr: os.Stderr}) }

// newRootFor is the command tree of one invocation.
func newRootFor(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:   "writeamp",
		Short: "Measure what a write workload really costs your database",
		Long: `writeamp snapshots a database's own write counters (index entries, HOT updates, WAL/redo bytes, page splits,
latch waits) before and after a workload and puts variants side by side, every number with its source and exactness.
Exit codes, the same for every command: 0 done (or within every budget), 1 a budget exceeded
(check) or something needed missing (doctor), 2 bad input or could not measure, 3 the database
not as it was (check), 130 interrupted, 141 output closed; measure passes on its command's own.
Reference: docs/cli/writeamp.md, docs/concepts.md (windows, exactness, units, exit codes)`,
		Example: `  writeamp run   # the Keycloak refresh-token experiment on a throwaway local PostgreSQL
  writeamp check --dsn "$DSN" --migration up.sql --budget 'log_bytes/op<=+5%' -- psql "$DSN" -f work.sql`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{err}
	})
	root.AddCommand(newRunCmd(a), newVersionCmd(), newMeasureCmd(a), newSnapshotCmd(a), newDiffCmd(a), newCompareCmd())
	root.AddCommand(newCheckCmd(a), newAdviseCmd(a), newPlanCmd(), newDoctorCmd(), newCleanCmd())
	root.AddCommand(newExplainCmd())
	root.AddCommand(newGenCmd(root))
	return root
}
