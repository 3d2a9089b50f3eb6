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
		Long: `clean lists every writeamp_rt_* schema in the database and what it is:

  in use     a writeamp run holds its lock: it is running now (any host, any
             container); never touched
  abandoned  its lock is free: the run that made it did not finish (kill -9,
             a crash, a lost server); the next run drops it anyway
  kept       kept with --keep for inspection; never dropped automatically
  unlocked   made by a writeamp from before schema locks: whether its run is
             alive cannot be told; dropped only when named with --schema
  not ours   no writeamp marker; never touched

and, on PostgreSQL, a pg_walinspect extension writeamp created that no run
uses any more, and the writeamp_ck_* databases a check --clone left (killed
with -9, or its server connection lost): in use while its check holds the
run's lock or a session is connected, abandoned once both are gone, not
ours without writeamp's marker (a comment on the database). It also lists
the records (writeamp_undo_*) of migrations a check applied and did not
undo (killed with -9, a crash): pending, with the undo; in use while a check
holds the database's check lock. --drop removes the abandoned and kept
schemas, that extension and the abandoned copies, and finishes each pending
undo with the same proof as check's own (PostgreSQL: one transaction that
commits only when the catalog is the one recorded before the migration),
then drops its record; with --schema only the schemas named (unlocked ones
included).

A snapshot's replication slot (writeamp_snap_*, on PostgreSQL) is listed
but never dropped by --drop: between a snapshot and its diff nothing holds
it, so a window in progress cannot be told from a forgotten one. --slot
NAME drops it once you know no diff will read it.

Exit status: 0 nothing is left that needs anything (or only what a running
writeamp uses); 1 without --drop, something clean --drop would remove; 3
something is left that clean will not do by itself (a snapshot's slot, an
undo it could not prove, a schema from before locks, a drop that failed):
the lines above say what; 2 could not connect or bad input.`,
		Example: `  writeamp clean --dsn postgres://app@db.test:5432/keycloak
  writeamp clean --dsn postgres://app@db.test:5432/keycloak --drop
  writeamp clean --dsn mysql://root@127.0.0.1:3306/test --drop --schema writeamp_rt_1a2b3c4d_coarse`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			t, err := connect(ctx, dsn, embedOpts{Allow: false}, cmd.ErrOrStderr())
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
	f.StringVar(&dsn, "dsn", "", "database URL; default: WRITEAMP_DSN, DATABASE_URL or PG* variables")
	f.BoolVar(&drop, "drop", false, "drop the abandoned and kept schemas (and an abandoned pg_walinspect writeamp created, check --clone copies whose check is gone, and finish pending undos); never a snapshot's slot (--slot)")
	listFlag(f, &schemas, "schema", "", nil, "with --drop: only these schemas (repeatable; unlocked ones too)")
	listFlag(f, &slots, "slot", "", nil, "drop this snapshot's replication slot (writeamp_snap_*; repeatable): once no diff will read its window")
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
