package check

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/writeamp/writeamp/check/restore"
	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/result"
	"github.com/writeamp/writeamp/sqlparse"
)

// errRefused marks a check refused before anything was applied (exit 2).
var errRefused = restore.ErrRefused

// measure applies --schema to the database, measures the command,
// applies the migration, measures the command again (Repeat times, the
// migration undone between repetitions) and undoes what it applied, the
// migration and then --schema, unless --keep-migration. The undo is
// planned before anything is applied: a migration check cannot undo is
// refused then, not discovered afterwards.
func (c *Command) measure(ctx context.Context, g *Gate, out *Outcome) (*sides, error) {
	if _, err := exec.LookPath(c.Argv[0]); err != nil {
		return nil, fmt.Errorf("%w: command %q: %w", errApply, c.Argv[0], err)
	}
	gd, err := g.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer gd.Release()
	var plan *restore.Plan
	var user map[string]restore.Table // the user's tables, there before check
	var start restore.Snapshot
	var migTarget *restore.Target
	if g.KeepMigration {
		if g.repeat() > 1 {
			return nil, fmt.Errorf("%w: --repeat measures each side on a fresh state, which needs the migration undone between repetitions: drop --keep-migration, or use --clone", errRefused)
		}
		out.Restore = &restore.Restoration{Method: restore.MethodKept, How: "the --schema files and the migration stay applied"}
	} else {
		var err error
		ce := newCatalogExistence(ctx, g.Window.DB, g.server())
		plan, err = restore.PlanUndo(g.server().Dialect, g.Schema, g.Migration, c.Down, sqlparse.NewExistence(g.server().Dialect, ce.exists))
		if err != nil {
			return nil, fmt.Errorf("%w: %w", errRefused, err)
		}
		ce.freeze()
		if user, err = g.env().Tables(ctx, g.Window.DB); err != nil {
			return nil, measureErr("before", err)
		}
		if start, err = g.env().Take(ctx, g.Window.DB, user); err != nil {
			return nil, measureErr("before", err)
		}
		// The record goes in before anything is applied: a check killed
		// with -9 from here on leaves it for clean, doctor and the next check.
		// Until it is written nothing was applied, so a failure here has
		// no restore to report.
		if err := gd.Mark(ctx, plan.Statements(g.env()), start.Cat); err != nil {
			gd.Unmark(context.WithoutCancel(ctx))
			return nil, measureErr("before", err)
		}
		out.Restore = &restore.Restoration{Method: restore.MethodUndo, How: "undone: " + plan.Describe()}
		if user == nil {
			out.Restore.Limits = append(out.Restore.Limits, g.server().Dialect+": rows are not counted or checksummed, only the catalog is compared")
		}
		g.logf("after measuring, check undoes %s", plan.Describe())
		defer func() {
			if migTarget != nil {
				g.undo(ctx, plan.Migration, out.Restore, true, migTarget)
			}
			g.undo(ctx, plan.Schema, out.Restore, true, &restore.Target{Pre: start, Post: start, User: user, Tabs: user})
			g.compareCatalog(ctx, g.Window.DB, start.Cat, out.Restore)
			if r := out.Restore; r.Checked && len(r.Added) == 0 && len(r.Removed) == 0 && len(r.Rows) == 0 {
				gd.Unmark(context.WithoutCancel(ctx))
			} else if m := gd.Marker(); m != "" {
				r.Limits = append(r.Limits, "the record of the migration stays in the database ("+m+"): the next check on it finishes the undo first where it can prove it (else refuses), and writeamp clean --drop does it on request")
			} else {
				r.Limits = append(r.Limits, g.server().Dialect+" keeps no record of the migration: what is listed above stays as it is until you undo it")
			}
		}()
	}
	res := measure.NewResult(g.server(), g.Window.Version)
	// The command line goes into results people share: passwords masked.
	res.Workload = result.Workload{Name: "command", Params: map[string]any{"command": strings.Join(measure.RedactArgs(c.Argv), " ")}}
	if len(g.Schema) > 0 {
		g.logf("applying the starting schema %s", paths(g.Schema))
		if err := g.applyPublished(ctx, g.Window, g.Schema); err != nil {
			return nil, fmt.Errorf("%w: --schema: %w", errApply, err)
		}
	}
	// --scope-schema may name a schema the --schema files just created.
	sc, err := collectors.Resolve(ctx, g.Window.DB, g.server(), g.Scope)
	if err != nil {
		return nil, fmt.Errorf("--scope-schema: %w", err)
	}
	g.Scope = sc
	var befores, afters []*result.Run
	for i := range g.repeat() {
		if i > 0 {
			g.undo(ctx, plan.Migration, out.Restore, false, migTarget)
			migTarget = nil
		}
		quiet := g.quietBefore(ctx, plan, i, user, start)
		before, notes, err := g.measureCommand(ctx, g.Window, repLabel("before", i, g.repeat()), c.Argv, nil, c.Output)
		if err != nil {
			return nil, err
		}
		res.Notes = append(res.Notes, notes...)
		if plan != nil {
			if migTarget, err = g.env().TargetBefore(ctx, user); err != nil {
				return nil, measureErr("before the migration", err)
			}
			migTarget.Quiet = quiet
		}
		g.logf("applying the migration %s", paths(g.Migration))
		var applyErr error
		if i == 0 {
			// The apply step is a window of its own (applycost.go).
			res.Migration, applyErr = g.applyMeasured(ctx, g.Window, g.Migration)
		} else if applyErr = g.applyPublished(ctx, g.Window, g.Migration); applyErr != nil {
			applyErr = fmt.Errorf("%w: --migration: %w", errApply, applyErr)
		}
		if migTarget != nil {
			g.env().AfterApply(ctx, migTarget, g.Migration, out.Restore)
		}
		if applyErr != nil {
			return nil, applyErr
		}
		if i == 0 {
			res.Notes = append(res.Notes, migrationNote(res.Migration))
		}
		after, _, err := g.measureCommand(ctx, g.Window, repLabel("after", i, g.repeat()), c.Argv, nil, c.Output)
		if err != nil {
			return nil, err
		}
		befores, afters = append(befores, before), append(afters, after)
	}
	res.Notes = append(res.Notes, fmt.Sprintf("before: the command on the database%s; after: the same command once the migration (%s) was applied; %s",
		withSchema(g.Schema), paths(g.Migration), perOpNote(afters[0])))
	return &sides{res, befores, afters}, nil
}

// perOpNote says what /op means for a wrapped command's run.
func perOpNote(r *result.Run) string {
	if op, _ := r.Main(); op == "row_writes" {
		return "per operation = per row written (rows inserted + updated + deleted in the measured tables, as the server counts them per table)"
	}
	return "per operation = per command: " + rowCountsWhy(r) + ", so /op budgets divide by the one command run"
}

// rowCountsWhy is the reason a run has no rows per table: the collector
// that would have counted them, missing with its reason, or else a server
// that counts them (PostgreSQL) where the command wrote none.
func rowCountsWhy(r *result.Run) string {
	for _, m := range r.Missing {
		if m.Lacking(result.RowsInserted) {
			return "this server counts no rows per table here (" + m.Reason + ")"
		}
	}
	return "the command wrote no row to a measured table (no table counter of rows written changed)"
}

// undo runs steps' undo on a connection of its own, within a minute even
// after an interrupt, and records it in r; final says it is the last
// undo, whose statements the report lists.
func (g *Gate) undo(ctx context.Context, steps []restore.Step, r *restore.Restoration, final bool, t *restore.Target) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	conn, err := g.Window.DB.Conn(cctx)
	if err != nil {
		r.Failed = append(r.Failed, "connect to undo: "+err.Error())
		return
	}
	defer conn.Close()
	g.env().RunUndo(cctx, conn, steps, t, r, final)
	if err := g.Window.EndSession(cctx, conn); err != nil {
		g.logf("warning: %v", err)
	}
}

// measureCommand measures command once on win, as `writeamp measure`
// does, with the rows it writes as its operations; env is added to the
// command's environment and out gets its output (nil: discarded). A
// command that fails cannot be measured.
func (g *Gate) measureCommand(ctx context.Context, win *measure.Window, label string, command, env []string, out io.Writer) (*result.Run, []string, error) {
	if out == nil {
		out = io.Discard
	}
	w := &measure.Wrapped{Window: win, Scope: g.Scope, Label: label, Command: command, Env: env,
		Stdin: os.Stdin, Stdout: out, Stderr: out, CountRowWrites: true}
	res, code, err := w.Run(ctx)
	if err != nil {
		return nil, nil, measureErr(label, err)
	}
	if code != 0 {
		return nil, nil, measureErr(label+": the command failed", fmt.Errorf("exit status %d", code))
	}
	run := res.Runs[0]
	if err := resetRefusal(label, &run); err != nil {
		return nil, nil, err
	}
	run.Label, _, _ = strings.Cut(label, " ")
	return &run, res.Notes, nil
}

// quietBefore reads the user's tables' rows just before the command runs on
// the before side of repetition i (nil without an undo plan): the first
// repetition without --schema starts where start was read.
func (g *Gate) quietBefore(ctx context.Context, plan *restore.Plan, i int, user map[string]restore.Table, start restore.Snapshot) map[string]restore.RowSum {
	if plan == nil {
		return nil
	}
	if i == 0 && len(g.Schema) == 0 {
		return start.Rows
	}
	return g.env().RowSums(ctx, g.Window.DB, user)
}
