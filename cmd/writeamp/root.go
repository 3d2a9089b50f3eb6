package main

import (
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
)

func newRoot() *cobra.Command {
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
	root.AddCommand(newRunCmd(), newVersionCmd(), newMeasureCmd(), newSnapshotCmd(), newDiffCmd(), newCompareCmd())
	root.AddCommand(newCheckCmd(), newAdviseCmd(), newPlanCmd(), newDoctorCmd(), newCleanCmd())
	root.AddCommand(newExplainCmd())
	root.AddCommand(newGenCmd(root))
	return root
}
