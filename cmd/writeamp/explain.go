package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/writeamp/writeamp/explain"
	"github.com/writeamp/writeamp/internal/safeio"
	"github.com/writeamp/writeamp/internal/termwidth"
)

func newExplainCmd() *cobra.Command {
	var dsn, format string
	cmd := &cobra.Command{
		Use:   "explain --dsn URL FILE.sql...",
		Short: "Predict what each write statement of SQL files costs the indexes, without running it",
		Long: `explain reads each INSERT, UPDATE and DELETE of the files (PostgreSQL's own parser on
PostgreSQL) and the indexes of its table from the catalog, in a read-only transaction,
and predicts: the columns it sets, the indexes that contain them (key, INCLUDE,
expression, partial-index predicate), whether an UPDATE can be HOT (PostgreSQL) or
rewrites secondary-index entries (InnoDB), and the index entries each row adds. On
PostgreSQL it applies the server major's own HOT rules; what they decide at run time
(page free space, whether a new value equals the old) is named in depends_on, and a
count that is only a bound or unknown says so (certainty). An
index a file creates counts for the statements after it, in that file and in the
files after it (explain migration.sql workload.sql), so a migration can be
reviewed before it is applied. Nothing in the files is run.
Reference: docs/cli/writeamp_explain.md, docs/check-ci.md (how SQL files are read)`,
		Example: `  writeamp explain --dsn postgres://app@db.test/keycloak migration.sql
  writeamp explain --dsn mysql://root@127.0.0.1:3306/app --format json workload.sql`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, files []string) error {
			var texts []string
			for _, f := range files {
				b, err := safeio.ReadFile(f, 64<<20)
				if err != nil {
					return exitError{code: exitUsage, err: fmt.Errorf("explain: read %s: %w", f, err)}
				}
				texts = append(texts, string(b))
			}
			ctx := cmd.Context()
			t, err := connect(ctx, sourceOf(dsn), embedOpts{Allow: false}, cmd.ErrOrStderr())
			if err != nil {
				return exitError{code: exitUsage, err: err}
			}
			defer t.Close()
			// One call for every file: an index an earlier file creates
			// counts for the statements of the later ones.
			reps, err := explain.Files(ctx, t.DB, t.Server, texts)
			if err != nil {
				return exitError{code: exitUsage, err: fmt.Errorf("explain %s: %w", strings.Join(files, " "), err)}
			}
			for i, rep := range reps {
				if len(files) > 1 && format != "json" {
					fmt.Fprintf(cmd.OutOrStdout(), "== %s\n", files[i])
				}
				out := cmd.OutOrStdout()
				if format == "table" {
					// Prose, one statement a block: wrapped to the width.
					tw := termwidth.NewWriter(out, outputWidth(""))
					defer tw.Flush()
					out = tw
				}
				if err := explain.Render(out, format, rep); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dsn, "dsn", "", "database URL whose catalog is read (default: WRITEAMP_DSN, DATABASE_URL, PG*)")
	formatFlag(cmd, &format, []string{"table", "json"})
	return cmd
}
