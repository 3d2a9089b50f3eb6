package check

import (
	"context"
	"database/sql"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/writeamp/writeamp/budget"
	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
	"github.com/writeamp/writeamp/workloads"
	"github.com/writeamp/writeamp/workloads/refreshtoken"
)

//go:embed postgres.sql
var postgresSQL string

func ownSQL(dialect, name string) (string, error) {
	if dialect != "postgres" {
		return "", fmt.Errorf("check: no %s statement for %s", name, dialect)
	}
	bs, err := queries.Parse("postgres", "check/postgres.sql", postgresSQL)
	if err != nil {
		return "", err
	}
	for _, b := range bs {
		if b.Name == name {
			return b.SQL, nil
		}
	}
	return "", fmt.Errorf("check: no statement %s", name)
}

// Gate is one `writeamp check`.
type Gate struct {
	// Window is the measured database; every measurement of the check is
	// one of its windows.
	Window *measure.Window
	// Schema is applied once before the first measurement: to the database
	// (wrapped command) or to each workload schema (built-in workload).
	Schema    []File
	Migration []File
	Budgets   []budget.Budget
	// Command, when set, is the workload: run once before and once after
	// the migration. Otherwise the built-in refresh-token workload runs with
	// Params on Variant, in its own schema, and the migration is applied to
	// that schema (search_path) before the "after" measurement.
	Command []string
	Scope   collectors.Scope
	Params  refreshtoken.Params
	Variant string
	// Concurrency is the built-in workload's number of workers (1 when 0).
	Concurrency int
	Log         io.Writer
	// CommandOutput receives the command's stdout and stderr (nil: discarded).
	CommandOutput io.Writer
	Progress      func(variant string, total int64) (workloads.Progress, func())
}

// Outcome is what a check found.
type Outcome struct {
	Result   *result.Result
	Static   []Warning
	Verdicts []budget.Verdict
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
func (g *Gate) Updates() []Update {
	if g.Command != nil {
		ups, notes := UpdatesOfCommand(g.server().Dialect, g.Command)
		for _, n := range notes {
			g.logf("%s", n)
		}
		return ups
	}
	w := refreshtoken.New(g.Params)
	var out []Update
	for name, e := range w.Effects() {
		if e.Kind != "update" || (g.Variant == "baseline" && strings.HasSuffix(name, "_coarse")) {
			continue
		}
		out = append(out, Update{Table: e.Table, Columns: e.Columns, Example: "UPDATE " + e.Table + " SET " + strings.Join(e.Columns, ", "), Source: "refresh-token statement " + name})
	}
	return out
}

// Run measures before, applies the migration, measures after and evaluates.
func (g *Gate) Run(ctx context.Context) (*Outcome, error) {
	out := &Outcome{}
	for _, files := range [][]File{g.Schema, g.Migration} {
		if err := Split(g.server().Dialect, files); err != nil {
			return out, fmt.Errorf("%w: %w", errApply, err)
		}
	}
	idx, skipped := IndexesIn(g.server().Dialect, g.Migration)
	for _, s := range skipped {
		g.logf("static check: PostgreSQL's parser did not read %s; it is applied as written but not checked", s)
	}
	out.Static = Warn(g.server().Dialect, idx, g.Updates())
	for _, w := range out.Static {
		g.logf("warning: %s", w.Text)
	}
	var before, after *result.Run
	var res *result.Result
	var err error
	if g.Command != nil {
		res, before, after, err = g.runCommand(ctx)
	} else {
		res, before, after, err = g.runBuiltin(ctx)
	}
	if err != nil {
		return out, err
	}
	out.Result = res
	for _, w := range out.Static {
		res.Notes = append(res.Notes, "static check: "+w.Text)
	}
	for _, b := range g.Budgets {
		out.Verdicts = append(out.Verdicts, budget.Evaluate(b, before, after)...)
	}
	return out, nil
}

// Exit is the documented exit code: 0 within budget, 1 a budget exceeded, 2
// a budget that could not be evaluated.
func (o *Outcome) Exit() int {
	_, fail, unknown := budget.Summary(o.Verdicts)
	switch {
	case fail > 0:
		return 1
	case unknown > 0:
		return 2
	}
	return 0
}

// apply runs files on one connection, with search_path set to schema when
// given (PostgreSQL), and publishes the session's statistics so the DDL is
// not counted inside the next window.
func (g *Gate) apply(ctx context.Context, conn *sql.Conn, schema string, files []File) (err error) {
	if schema != "" {
		set, err := ownSQL(g.server().Dialect, "set_search_path")
		if err != nil {
			return fmt.Errorf("the built-in workload applies migrations to its own schema with search_path, which %s does not have: use -- COMMAND", g.server())
		}
		if _, err := conn.ExecContext(ctx, set, schema+", public"); err != nil {
			return fmt.Errorf("set search_path: %w", err)
		}
		defer func() {
			reset, _ := ownSQL(g.server().Dialect, "reset_search_path")
			if _, rerr := conn.ExecContext(context.WithoutCancel(ctx), reset); rerr != nil && err == nil {
				err = fmt.Errorf("reset search_path: %w", rerr)
			}
		}()
	}
	for _, f := range files {
		for i, st := range f.Statements {
			if _, err := conn.ExecContext(ctx, st.Text); err != nil {
				if rb, e := ownSQL(g.server().Dialect, "rollback"); e == nil {
					conn.ExecContext(context.WithoutCancel(ctx), rb) // leave no open transaction behind
				}
				return fmt.Errorf("%s, statement %d at line %d (%s): %w", f.Path, i+1, st.Line, short(st.Text), err)
			}
		}
	}
	return nil
}

func short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

func (g *Gate) applyPublished(ctx context.Context, schema string, files []File) error {
	if len(files) == 0 {
		return nil
	}
	conn, err := g.Window.DB.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	err = g.apply(ctx, conn, schema, files)
	if perr := g.Window.EndSession(context.WithoutCancel(ctx), conn); perr != nil && err == nil {
		err = perr
	}
	return err
}

func paths(files []File) string {
	var ps []string
	for _, f := range files {
		ps = append(ps, f.Path)
	}
	return strings.Join(ps, ", ")
}

// runBuiltin measures the refresh-token workload on a fresh schema before
// and on a fresh schema with the migration applied after; same parameters
// and seed, so the same work.
func (g *Gate) runBuiltin(ctx context.Context) (*result.Result, *result.Run, *result.Run, error) {
	if g.server().Dialect != "postgres" {
		return nil, nil, nil, fmt.Errorf("check with the built-in workload applies the migration to the workload's schema through search_path, which only PostgreSQL has; on %s wrap your own workload: writeamp check ... -- COMMAND", g.server())
	}
	one := func(label string, files []File) (*result.Result, error) {
		w := refreshtoken.New(g.Params)
		w.AfterPrepare = func(ctx context.Context, conn *sql.Conn, schema string) error {
			if err := g.apply(ctx, conn, schema, files); err != nil {
				return fmt.Errorf("%w: %w", errApply, err)
			}
			return nil
		}
		g.logf("%s: measuring refresh-token (%s) with %s", label, g.Variant, orNone(paths(files)))
		exp := &measure.Experiment{Window: g.Window, Workload: w, Variants: []string{g.Variant}, Concurrency: g.Concurrency, Progress: g.Progress}
		res, err := exp.Run(ctx)
		if err != nil {
			if errors.Is(err, errApply) {
				return nil, fmt.Errorf("%s: %w", label, err)
			}
			return nil, measureErr(label, err)
		}
		return res, nil
	}
	r1, err := one("before", g.Schema)
	if err != nil {
		return nil, nil, nil, err
	}
	r2, err := one("after", append(append([]File{}, g.Schema...), g.Migration...))
	if err != nil {
		return nil, nil, nil, err
	}
	res := r1
	b, a := r1.Runs[0], r2.Runs[0]
	b.Label, a.Label = "before", "after"
	res.Runs = []result.Run{b, a}
	res.Notes = append(res.Notes, r2.Notes...)
	res.Notes = dedupe(append(res.Notes, fmt.Sprintf("before: variant %s as is%s; after: the same with the migration (%s) applied in the workload's schema (search_path), same parameters and seed", g.Variant, withSchema(g.Schema), paths(g.Migration))))
	return res, &res.Runs[0], &res.Runs[1], nil
}

var errApply = errors.New("applying SQL failed")

func orNone(s string) string {
	if s == "" {
		return "no migration"
	}
	return s
}

func withSchema(files []File) string {
	if len(files) == 0 {
		return ""
	}
	return " plus " + paths(files)
}

// runCommand applies --schema to the database, measures the command, applies
// the migration, measures the command again.
func (g *Gate) runCommand(ctx context.Context) (*result.Result, *result.Run, *result.Run, error) {
	if _, err := exec.LookPath(g.Command[0]); err != nil {
		return nil, nil, nil, fmt.Errorf("%w: command %q: %w", errApply, g.Command[0], err)
	}
	res := measure.NewResult(g.server())
	// The command line goes into results people share: passwords masked.
	res.Workload = result.Workload{Name: "command", Params: map[string]any{"command": strings.Join(measure.RedactArgs(g.Command), " ")}}
	if len(g.Schema) > 0 {
		g.logf("applying the starting schema %s", paths(g.Schema))
		if err := g.applyPublished(ctx, "", g.Schema); err != nil {
			return nil, nil, nil, fmt.Errorf("%w: --schema: %w", errApply, err)
		}
	}
	// --scope-schema may name a schema the --schema files just created.
	sc, err := collectors.Resolve(ctx, g.Window.DB, g.server(), g.Scope)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("--scope-schema: %w", err)
	}
	g.Scope = sc
	before, notes, err := g.measureCommand(ctx, "before")
	if err != nil {
		return nil, nil, nil, err
	}
	res.Notes = append(res.Notes, notes...)
	g.logf("applying the migration %s", paths(g.Migration))
	if err := g.applyPublished(ctx, "", g.Migration); err != nil {
		return nil, nil, nil, fmt.Errorf("%w: --migration: %w", errApply, err)
	}
	after, _, err := g.measureCommand(ctx, "after")
	if err != nil {
		return nil, nil, nil, err
	}
	res.Runs = []result.Run{*before, *after}
	res.Notes = append(res.Notes, fmt.Sprintf("before: the command on the database%s; after: the same command once the migration (%s) was applied; per operation = per row written (rows inserted + updated + deleted in the measured tables, pg_stat_user_tables or the dialect's row counters)", withSchema(g.Schema), paths(g.Migration)))
	return res, &res.Runs[0], &res.Runs[1], nil
}

// measureCommand measures the command once, as `writeamp measure` does, with
// the rows it writes as its operations; a command that fails cannot be
// measured.
func (g *Gate) measureCommand(ctx context.Context, label string) (*result.Run, []string, error) {
	out := g.CommandOutput
	if out == nil {
		out = io.Discard
	}
	w := &measure.Wrapped{Window: g.Window, Scope: g.Scope, Label: label, Command: g.Command,
		Stdin: os.Stdin, Stdout: out, Stderr: out, CountRowWrites: true}
	res, code, err := w.Run(ctx)
	if err != nil {
		return nil, nil, measureErr(label, err)
	}
	if code != 0 {
		return nil, nil, measureErr(label+": the command failed", fmt.Errorf("exit status %d", code))
	}
	run := res.Runs[0]
	run.Label = label
	return &run, res.Notes, nil
}

// IsApplyError reports a failure of the user's SQL or command (as opposed to
// a measurement failure).
func IsApplyError(err error) bool { return errors.Is(err, errApply) }
