package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/writeamp/writeamp/check"
	"github.com/writeamp/writeamp/check/restore"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/workloads"
	"github.com/writeamp/writeamp/workloads/owned"
)

func newCleanCmd() *cobra.Command {
	var (
		dsn     string
		drop    bool
		schemas []string
		slots   []string
	)
	cmd := &cobra.Command{
		Use:   "clean --dsn URL [--drop] [--schema NAME]...",
		Short: "List what writeamp left in a database (kept schemas, runs that did not finish) and drop it on request",
		Long: `clean lists what writeamp left in the database and what it is: writeamp_rt_* schemas
(in use by a running writeamp; abandoned by one that did not finish; kept with --keep;
unlocked, from before schema locks; not ours), and on PostgreSQL a pg_walinspect writeamp
created that no run uses, the writeamp_ck_* copies a killed check --clone left, the
records (writeamp_undo_*) of migrations a killed check did not undo, and snapshots'
replication slots (writeamp_snap_*).

--drop removes the abandoned and kept schemas, that extension and the abandoned copies, and
finishes each pending undo with check's own proof; with --schema only the schemas named.
A snapshot's slot goes only with --slot NAME: a window in progress cannot be told from a
forgotten one. Never touched: what is in use, and what is not ours.

Exit status: 0 nothing left that needs anything; 1 without --drop, something --drop would
remove; 3 something left that clean will not do by itself (the lines say what); 2 could
not connect or bad input.
Reference: docs/cli/writeamp_clean.md, docs/check-ci.md (the restore and undo records)`,
		Example: `  writeamp clean --dsn postgres://app@db.test:5432/keycloak
  writeamp clean --dsn postgres://app@db.test:5432/keycloak --drop
  writeamp clean --dsn mysql://root@127.0.0.1:3306/test --drop --schema writeamp_rt_1a2b3c4d_coarse`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			t, err := connect(ctx, sourceOf(dsn), embedOpts{Allow: false}, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer t.Close()
			named := func(s string) bool {
				return slices.ContainsFunc(schemas, func(n string) bool { return strings.EqualFold(n, s) })
			}
			wanted := func(l owned.Leftover) bool {
				switch {
				case !drop || l.State == owned.StateInUse || l.State == owned.StateNotOurs:
					return false
				case len(schemas) > 0:
					return named(l.Schema)
				}
				return l.State == owned.StateAbandoned || l.State == owned.StateKept
			}
			var found []owned.Leftover
			for _, prefix := range schemaPrefixes() {
				f, err := owned.Survey(ctx, t.Target, prefix, wanted)
				if err != nil {
					return err
				}
				found = append(found, f...)
			}
			for _, n := range schemas {
				if !slices.ContainsFunc(found, func(l owned.Leftover) bool { return strings.EqualFold(l.Schema, n) }) {
					return usagef("--schema %s: no writeamp schema of that name here", n)
				}
			}
			var extra []string
			if lf, ok := t.Dialect.(dialects.LeftoverFinder); ok {
				if extra, err = lf.Leftovers(ctx, t.DB, t.Server, drop && len(schemas) == 0); err != nil {
					return err
				}
			}
			copies, err := check.CloneLeftovers(ctx, t.DB, t.Server, t.Server.Database, drop && len(schemas) == 0)
			if err != nil {
				return err
			}
			extra = append(extra, copies...)
			// Migrations a killed check left applied, with their undo.
			undos, err := restore.PendingUndos(ctx, t.DB, t.Server, drop && len(schemas) == 0)
			if err != nil {
				return err
			}
			extra = append(extra, undos...)
			for _, name := range slots {
				h, ok := t.Dialect.(dialects.WALHolder)
				if !ok || !strings.HasPrefix(name, "writeamp_snap_") {
					return usagef("--slot %s: not a writeamp snapshot's replication slot (writeamp_snap_*, PostgreSQL)", name)
				}
				if err := h.ReleaseWAL(ctx, t.DB, t.Server, name); err != nil {
					return err
				}
			}
			if lf, ok := t.Dialect.(dialects.LeftoverFinder); ok && len(slots) > 0 {
				// Listed again without the slots just dropped.
				if extra, err = lf.Leftovers(ctx, t.DB, t.Server, false); err != nil {
					return err
				}
				extra = append(extra, copies...)
				extra = append(extra, undos...)
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "writeamp clean · %s (%s)\n", t.Server, t.Where)
			for _, name := range slots {
				fmt.Fprintf(out, "  replication slot %s; dropped (--slot)\n", name)
			}
			if len(found) == 0 && len(extra) == 0 {
				fmt.Fprintln(out, "nothing of writeamp's here")
				return nil
			}
			dropped, droppable := 0, 0
			for _, l := range found {
				fmt.Fprintf(out, "  %-9s  %s  %s\n", l.State, l.Schema, l.Detail)
				if strings.HasSuffix(l.Detail, "; dropped") {
					dropped++
				} else if l.State == owned.StateAbandoned || l.State == owned.StateKept {
					droppable++
				}
			}
			for _, e := range extra {
				fmt.Fprintf(out, "  %s\n", e)
			}
			switch {
			case drop:
				fmt.Fprintf(out, "dropped %d schema(s)\n", dropped)
			case droppable > 0:
				fmt.Fprintf(out, "writeamp clean --drop removes the %d abandoned or kept schema(s)\n", droppable)
			}
			byHand, forDrop := 0, droppable
			for _, l := range found {
				if l.State == owned.StateLegacy && !strings.HasSuffix(l.Detail, "; dropped") {
					byHand++
				}
			}
			for _, e := range extra {
				switch k := leftoverKind(e); {
				case k == leftByHand:
					byHand++
				case k == leftForDrop && !drop:
					forDrop++
				}
			}
			switch {
			case byHand > 0:
				return exitError{code: 3, err: fmt.Errorf("%d thing(s) above are left for you to resolve (clean does not drop them by itself)", byHand)}
			case forDrop > 0:
				return exitError{code: 1, err: fmt.Errorf("%d thing(s) above are left: writeamp clean --drop removes them", forDrop)}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dsn, "dsn", "", "database URL (default: WRITEAMP_DSN, DATABASE_URL or PG* variables)")
	f.BoolVar(&drop, "drop", false, "drop what is abandoned or kept and finish pending undos (never a slot)")
	listFlag(f, &schemas, "schema", "", nil, "with --drop: only these schemas (repeatable; unlocked ones too)")
	listFlag(f, &slots, "slot", "", nil, "drop this snapshot's replication slot (writeamp_snap_*; repeatable)")
	return cmd
}

// The kinds of line clean lists besides schemas.
const (
	leftNothing = iota // done, in use by a running writeamp, or not ours
	leftForDrop        // clean --drop removes it
	leftByHand         // clean will not by itself
)

// leftoverKind reads a line of the leftover finders (dialects, check's
// copies and pending undos) for clean's exit status.
func leftoverKind(line string) int {
	l := strings.TrimSpace(line)
	switch {
	case strings.Contains(l, "NOT finished"), strings.Contains(l, "failed"), strings.Contains(l, "could not be dropped"),
		strings.Contains(l, "cannot be read"), strings.Contains(l, "waiting for its diff"):
		return leftByHand
	case strings.HasSuffix(l, "dropped") || strings.HasSuffix(l, "dropped)") || strings.HasPrefix(l, "in use") ||
		strings.Contains(l, "; in use") || strings.Contains(l, "(in use") || strings.HasPrefix(l, "not ours") || strings.HasPrefix(l, "other "):
		return leftNothing
	}
	return leftForDrop
}

// schemaPrefixes are those of every registered workload that owns schemas.
func schemaPrefixes() []string {
	var out []string
	for _, name := range workloads.Names() {
		if w, err := workloads.New(name); err == nil {
			if so, ok := w.(workloads.SchemaOwner); ok && !slices.Contains(out, so.SchemaPrefix()) {
				out = append(out, so.SchemaPrefix())
			}
		}
	}
	return out
}
