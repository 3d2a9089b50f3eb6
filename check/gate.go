package check

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/writeamp/writeamp/budget"
	"github.com/writeamp/writeamp/check/restore"
	"github.com/writeamp/writeamp/check/sqlfile"
	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
	"github.com/writeamp/writeamp/workloads"
)

// Gate is one `writeamp check`.
type Gate struct {
	// Window is the measured database; every measurement of the check is
	// one of its windows.
	Window *measure.Window
	// Schema is applied once before the first measurement: to the database
	// (wrapped command) or to each workload schema (built-in workload).
	Schema    []sqlfile.File
	Migration []sqlfile.File
	Budgets   []budget.Budget
	// Mode is how the workload runs: *Builtin, *Command or *Clone.
	Mode  Mode
	Scope collectors.Scope
	// KeepMigration leaves what check applied in place (--keep-migration).
	KeepMigration bool
	// Repeat measures each side this many times (1 when 0): budgets judge
	// the median and show the spread.
	Repeat int
	// Suppressions silence static warnings (-- writeamp:allow, the config's allow).
	Suppressions []Suppression
	// Advisory budgets (by budget.Budget.String) report without failing.
	Advisory map[string]bool
	Log      io.Writer
	Progress func(variant string, total int64) (workloads.Progress, func())
	// LockTimeout bounds each lock wait of the migration and its undo
	// (--lock-timeout; nil: DefaultLockTimeout, 0: as long as it takes).
	LockTimeout *time.Duration
	// OpenAs reconnects to the measured database as another login: the
	// built-in workload's migration runs as a login confined to its schema
	// (confine.go). Nil on a dialect without one.
	OpenAs dialects.OpenAs
	// runID names the built-in workload's schemas (random when ""): the
	// sqlmock tests expect their exact text.
	runID string
	// finished says what a killed check left that this one finished
	// first (restore.Env.Acquire), for the report's notes.
	finished []string
}

// Outcome is what a check found.
type Outcome struct {
	Result   *result.Result
	Static   []Warning
	Verdicts []budget.Verdict
	// Restore says how the database was put back and whether its catalog
	// is as it was (nil before anything was applied).
	Restore *restore.Restoration
	// Repetitions are the runs of each side when --repeat is above 1
	// (Result holds their medians).
	Repetitions *Repetitions
	// PerOp is what /op divides by ("refresh", "row written", "command").
	PerOp string
	// Suppressed are the static warnings a suppression silenced; Migration
	// and Dialect locate each finding at its statement (annotations, SARIF).
	Suppressed []Warning
	Migration  []sqlfile.File
	Dialect    string
	// Advisory are the budgets (verdicts' Budget) that do not fail the check.
	Advisory map[string]bool
}

// ErrMeasure marks a check that could not measure (exit code 2).
var ErrMeasure = errors.New("could not measure")

func (g *Gate) server() dialects.Server { return g.Window.Server }

func (g *Gate) logf(format string, a ...any) {
	if g.Log != nil {
		fmt.Fprintf(g.Log, format+"\n", a...)
	}
}

func measureErr(what string, err error) error {
	return fmt.Errorf("%w: %s: %w", ErrMeasure, what, err)
}

// Updates the workload runs, for the static warning.
func (g *Gate) Updates() []Update { return g.Mode.updates(g) }

// Run measures before, applies the migration, measures after, puts the
// database back as it was and evaluates. The outcome is returned on error
// too: Restore says what was undone after a failure.
func (g *Gate) Run(ctx context.Context) (*Outcome, error) {
	out := &Outcome{Migration: g.Migration, Dialect: g.server().Dialect}
	for _, files := range [][]sqlfile.File{g.Schema, g.Migration, downs(g.Mode)} {
		if err := sqlfile.SplitContext(ctx, g.server().Dialect, files); err != nil {
			return out, fmt.Errorf("%w: %w", errApply, err)
		}
	}
	idx, skipped := IndexesIn(g.server().Dialect, g.Migration)
	for _, s := range skipped {
		g.logf("static check: PostgreSQL's parser did not read %s; it is applied as written but not checked", s)
	}
	out.Static, out.Suppressed = suppress(Warn(g.server().Dialect, idx, g.Updates()), g.Suppressions, g.Migration)
	for _, w := range out.Suppressed {
		g.logf("suppressed (%s:%d, reason: %s): %s", w.Suppressed.Path, w.Suppressed.Line, w.Suppressed.Reason, w.Text)
	}
	for _, w := range out.Static {
		g.logf("warning: %s", w.Text)
	}
	if _, inPlace := g.Mode.(*Command); !inPlace {
		if err := g.settlePending(ctx); err != nil { // in place, measure takes the lock and does it
			return out, err
		}
	}
	sd, err := g.Mode.measure(ctx, g, out)
	if err != nil {
		return out, err
	}
	res := sd.res
	before, after := sd.before[0], sd.after[0]
	if len(sd.before) > 1 {
		out.Repetitions = &Repetitions{Before: sd.before, After: sd.after}
		if before, err = medianRun("before", sd.before); err == nil {
			after, err = medianRun("after", sd.after)
		}
		if err != nil {
			return out, err
		}
		res.Notes = append(res.Notes, fmt.Sprintf("each side was measured %d times (fresh state each time); the runs shown are the medians of each counter, per operation of the median operation count; the budgets judge these medians and show the spread of the repetitions", len(sd.before)))
	}
	res.Runs = []result.Run{*before, *after}
	out.Result = res
	res.Notes = append(res.Notes, g.finished...)
	for _, w := range out.Static {
		res.Notes = append(res.Notes, "static check: "+w.Text)
	}
	if out.Restore != nil {
		res.Notes = append(res.Notes, out.Restore.Sentence())
	}
	out.PerOp = perWhat(&res.Runs[1])
	for _, b := range g.Budgets {
		if vs, ok := migrationVerdicts(b, res.Migration); ok {
			out.Verdicts = append(out.Verdicts, vs...)
			continue
		}
		vs := budget.Evaluate(b, &res.Runs[0], &res.Runs[1])
		if out.Repetitions != nil {
			vs = out.Repetitions.judge(b, vs)
		}
		for i := range vs {
			if b.PerOp {
				// A relative budget's unit is % (of the per-operation value).
				vs[i].Unit = strings.Replace(vs[i].Unit, "per operation", "per "+out.PerOp, 1)
				if vs[i].Unit == "%" {
					vs[i].Unit = "% of " + b.Metric + " per " + out.PerOp
				}
			}
		}
		out.Verdicts = append(out.Verdicts, out.advise(g.Advisory[b.String()], vs)...)
	}
	return out, nil
}

// perWhat names one operation of a run, as /op divides by it.
func perWhat(r *result.Run) string {
	switch op, _ := r.Main(); op {
	case "row_writes":
		return "row written"
	case "":
		return "operation"
	default:
		return result.Singular(op)
	}
}

func (g *Gate) repeat() int {
	if g.Repeat < 1 {
		return 1
	}
	return g.Repeat
}

// Exit is the documented exit code (ExitPass … ExitNotAsItWas), the more
// severe winning: a database not as it was (3) over a budget that could not
// be evaluated (2) over a budget exceeded (1).
func (o *Outcome) Exit() int {
	_, fail, unknown := budget.Summary(o.enforced())
	code := ExitPass
	if fail > 0 {
		code = ExitBudget
	}
	if unknown > 0 {
		code = worse(code, ExitBadInput)
	}
	if !o.Restore.OK() {
		code = worse(code, ExitNotAsItWas)
	}
	return code
}

// apply runs files on one connection, inside the built-in workload's
// schema when given (see inSchema), counting what ran in each file's
// Applied.
func (g *Gate) apply(ctx context.Context, conn *sql.Conn, schema string, files []sqlfile.File) (err error) {
	if schema != "" {
		confined, leave, cerr := g.confine(ctx, conn, schema)
		if cerr != nil {
			return cerr
		}
		defer func() {
			if lerr := leave(context.WithoutCancel(ctx)); lerr != nil {
				err = errors.Join(err, lerr)
			}
		}()
		conn = confined
	}
	sess := g.env().Session(conn)
	for fi := range files {
		f := &files[fi]
		f.Applied = 0
		for i, st := range f.Statements {
			if err := sess.Exec(ctx, st.Text); err != nil {
				if rb, e := g.ownSQL("rollback"); e == nil {
					conn.ExecContext(context.WithoutCancel(ctx), rb) // leave no open transaction behind
				}
				return fmt.Errorf("%s, statement %d at line %d (%s): %w", f.Path, i+1, st.Line, short(st.Text), err)
			}
			f.Applied = i + 1
		}
	}
	if why := g.openTransaction(ctx, conn); why != "" {
		if rb, e := g.ownSQL("rollback"); e == nil {
			conn.ExecContext(context.WithoutCancel(ctx), rb) // what it did inside the block is gone: undo and measure nothing of it
		}
		return fmt.Errorf("%w: %s left its session inside %s; it was rolled back (add COMMIT, or drop the BEGIN: check runs each statement on its own)", errUncommitted, paths(files), why)
	}
	return nil
}

// errUncommitted marks a migration that left its session inside an open or
// failed transaction: what it did would have been rolled back when its
// connection closed, and the after side would measure the database without
// it (exit 2, after the rollback and the undo).
var errUncommitted = errors.New("the migration left its session inside a transaction")

// openTransaction says why conn is inside a transaction block ("" when it
// is not): BEGIN without COMMIT, or a block a failed statement aborted.
func (g *Gate) openTransaction(ctx context.Context, conn *sql.Conn) string {
	return g.traits().OpenTransaction(ctx, conn, g.server())
}

// traits is how check's queries and undo work on the gate's dialect.
func (g *Gate) traits() dialects.CheckTraits { return dialects.CheckOf(g.server().Dialect) }

// ownSQL is one of check's own statements for the server's dialect
// (queries/<dialect>/check.sql).
func (g *Gate) ownSQL(name string) (string, error) {
	return queries.Get(g.server().Dialect, name, g.server().VersionNum)
}

func short(s string) string { return restore.Short(s) }

// applyPublished applies files to the database on a connection of its
// own, and publishes the session's statistics so the DDL is not counted
// inside the next window.
func (g *Gate) applyPublished(ctx context.Context, win *measure.Window, files []sqlfile.File) error {
	return g.applyOn(ctx, win, "", files)
}

// applyOn is applyPublished inside schema ("" for none).
func (g *Gate) applyOn(ctx context.Context, win *measure.Window, schema string, files []sqlfile.File) error {
	if len(files) == 0 {
		return nil
	}
	conn, err := win.DB.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	err = g.apply(ctx, conn, schema, files)
	if perr := win.EndSession(context.WithoutCancel(ctx), conn); perr != nil && err == nil {
		err = perr
	}
	// The session ran the user's SQL: whatever it set (search_path, USE,
	// ALTER SESSION, a role, the lock timeout) must not reach the pool's
	// next user, the undo or a measurement. database/sql closes a
	// connection whose Raw returns ErrBadConn.
	conn.Raw(func(any) error { return driver.ErrBadConn })
	return err
}

func paths(files []sqlfile.File) string {
	var ps []string
	for _, f := range files {
		ps = append(ps, f.Path)
	}
	return strings.Join(ps, ", ")
}

var errApply = errors.New("applying SQL failed")

func orNone(s string) string {
	if s == "" {
		return "no migration"
	}
	return s
}

func withSchema(files []sqlfile.File) string {
	if len(files) == 0 {
		return ""
	}
	return " plus " + paths(files)
}

// IsApplyError reports a failure of the user's SQL or command (as opposed to
// a measurement failure).
func IsApplyError(err error) bool { return errors.Is(err, errApply) }
