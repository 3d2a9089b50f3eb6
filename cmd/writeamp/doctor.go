package main

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/writeamp/writeamp/check/restore"
	"github.com/writeamp/writeamp/doctor"
)

func newDoctorCmd() *cobra.Command {
	var (
		dsn, format, purpose string
		strict               bool
	)
	cmd := &cobra.Command{
		Use:   "doctor --dsn URL",
		Short: "What this server lets writeamp measure, and the statement that fixes each missing piece",
		Long: `doctor connects, probes the server and, for every collector of its dialect, says
whether it is available or missing, why (version, extension, privilege, a setting
such as STATISTICS_LEVEL or innodb_monitor_enable), and the exact statement that
fixes it. It reads one trial snapshot in a read-only transaction, and tries
what run does first: on PostgreSQL it creates a schema, a table and a row in
a transaction it rolls back (a read-only session, a standby or a missing
GRANT shows here, with the statement that fixes it for your user and
database); on MySQL/MariaDB it creates a database and a table, writes a row
and drops the database again. Nothing is left behind.

Each item names the first command that needs it: measure needs the log position
and the row counters, run also creates its own schema, check's built-in workload
also creates a login confined to that schema. pg_walinspect (or reading pg_wal)
is optional: without it per-index leaf inserts are derived, and labelled so.

Exit codes: 0 the --for command works (default measure), 1 it cannot, 2 no connection or bad flags.
Reference: docs/cli/writeamp_doctor.md, docs/privileges.md (what each collector needs)`,
		Example: `  writeamp doctor --dsn postgres://app@db.test:5432/keycloak
  writeamp doctor --dsn mysql://root@127.0.0.1:3306/test --format json
  writeamp doctor --dsn postgres://ci@localhost/scratch --strict   # fail CI unless pg_walinspect is usable`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if purpose != "" && !slices.Contains(doctor.Purposes, purpose) {
				return exitError{code: exitUsage, err: fmt.Errorf("doctor --for %q: want one of %s", purpose, strings.Join(doctor.Purposes, ", "))}
			}
			t, err := connect(ctx, sourceOf(dsn), embedOpts{Allow: false}, cmd.ErrOrStderr())
			if err != nil {
				return exitError{code: exitUsage, err: err}
			}
			defer t.Close()
			rep, err := doctor.Diagnose(ctx, t.DB, t.Server)
			if err != nil {
				return exitError{code: exitUsage, err: err}
			}
			rep.Where, rep.For, rep.Strict = t.Where, purpose, strict
			var buf bytes.Buffer
			if err := doctor.Render(&buf, format, rep); err != nil {
				return err
			}
			if _, err := cmd.OutOrStdout().Write(buf.Bytes()); err != nil {
				return err
			}
			// A check killed between apply and undo: say so here too (stderr,
			// so --format json stays one document).
			if undos, err := restore.PendingUndos(ctx, t.DB, t.Server, false); err == nil {
				for _, u := range undos {
					fmt.Fprintf(cmd.ErrOrStderr(), "warning: a check left its migration applied: %s (writeamp clean --drop finishes the undo)\n", strings.Join(strings.Fields(u), " "))
				}
			}
			switch {
			case !rep.OK() && purpose == "":
				return exitError{code: 1, err: fmt.Errorf("doctor: not even measure can work here (see above)")}
			case !rep.OK() && purpose == "check":
				return exitError{code: 1, err: fmt.Errorf("doctor --for check: check with its built-in workload cannot work here (see above)")}
			case !rep.OK():
				return exitError{code: 1, err: fmt.Errorf("doctor --for %s: %s cannot work here (see above)", purpose, purpose)}
			case strict && !rep.Complete():
				return exitError{code: 1, err: fmt.Errorf("doctor --strict: some collectors are missing (see above)")}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dsn, "dsn", "", "database URL (default: WRITEAMP_DSN, DATABASE_URL or PG* variables)")
	formatFlag(cmd, &format, doctor.Formats)
	f.StringVar(&purpose, "for", "", "judge one command: measure, run or check (default: measure, and say what works)")
	f.BoolVar(&strict, "strict", false, "exit 1 when anything is missing, optional collectors included")
	return cmd
}
