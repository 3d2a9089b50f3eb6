package measure

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/result"
	"github.com/writeamp/writeamp/workloads"
)

// Wrapped measures an external command (pgbench, a migration, a test suite):
// snapshot, run it with the terminal passed through, settle, snapshot, diff.
// Unlike Experiment it owns no objects, so there is nothing to prepare or
// clean up, and the operation count is whatever the user says it is.
type Wrapped struct {
	Window *Window
	Scope  collectors.Scope
	Label  string
	// Command is the program and its arguments, run without a shell.
	Command []string
	// Operations, when > 0, is what the command did, named OperationName;
	// without it reports normalize per row changed.
	Operations    int64
	OperationName string
	// CountRowWrites, when Operations is 0, makes the rows written in the
	// measured tables the run's operation ("row_writes"), so figures and
	// budgets are per operation (writeamp check measures commands this way).
	CountRowWrites bool
	// Env is added to the command's environment (writeamp's own).
	Env []string
	// Stdin, Stdout and Stderr of the command (nil: writeamp's own).
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// SettleTimeout bounds the wait for the command's statistics to become
	// visible (its sessions publish them as they end).
	SettleTimeout time.Duration
	// GracePeriod is how long an interrupted command has to exit after
	// SIGINT before it is killed.
	GracePeriod time.Duration
	// Vacuum measures, after the command's window, the cleanup of the dead
	// rows it left in the scope's tables, in a window of its own.
	Vacuum bool
	// Nodes are the other copies measured in the same window (nodes.go).
	Nodes []*Node
	// Checkpoint is where the window opens, as run's --checkpoint:
	// "before" (or "") right after a CHECKPOINT; "none" without one;
	// "steady" after a CHECKPOINT and one run of the command outside the
	// window, so the window sees the full-page images of a server between
	// checkpoints rather than of the first change to every page.
	Checkpoint string
}

// Checkpoints are the values Wrapped.Checkpoint (measure --checkpoint)
// takes; the first is the default, as run's.
var Checkpoints = []string{"before", "none", "steady"}

// CheckCheckpoint validates a --checkpoint value.
func CheckCheckpoint(flag, v string) error {
	for _, c := range Checkpoints {
		if v == c {
			return nil
		}
	}
	return fmt.Errorf("%s: %q is not one of %s", flag, v, strings.Join(Checkpoints, "|"))
}

func (w *Wrapped) logf(format string, a ...any) { w.Window.logf(format, a...) }

// Run measures the command. exitCode is the command's (-1 when it could not
// start); err is writeamp's own failure. An interrupted command still gets
// its "after" snapshot, so the result covers what it did before it stopped.
func (w *Wrapped) Run(ctx context.Context) (res *result.Result, exitCode int, err error) {
	exitCode = -1
	if len(w.Command) == 0 {
		return nil, exitCode, errors.New("no command to measure")
	}
	path, err := exec.LookPath(w.Command[0])
	if err != nil {
		return nil, exitCode, fmt.Errorf("command %q: %w", w.Command[0], err)
	}
	win := w.Window
	if w.SettleTimeout == 0 {
		w.SettleTimeout = 12 * time.Second
	}
	if w.GracePeriod == 0 {
		w.GracePeriod = 10 * time.Second
	}
	label := w.Label
	if label == "" {
		label = filepath.Base(w.Command[0])
	}
	shown := RedactArgs(w.Command)
	res = NewResult(win.Server, win.Version)
	cp := w.Checkpoint
	if cp == "" {
		cp = Checkpoints[0]
	}
	if err := CheckCheckpoint("checkpoint", cp); err != nil {
		return nil, exitCode, err
	}
	res.Workload = result.Workload{Name: "command", Params: map[string]any{"command": strings.Join(shown, " "), "checkpoint": cp}}

	// The same preparation as a built-in run: pg_walinspect for the window
	// (dropped afterwards), CHECKPOINT so full-page images start from zero
	// unless --checkpoint says otherwise.
	res.Notes = append(res.Notes, win.Instrument(ctx, true)...)
	defer win.Restore(ctx, 30*time.Second)
	undo, err := w.place(ctx, cp, path)
	defer undo()
	if err != nil {
		return nil, exitCode, err
	}
	span, err := win.Begin(ctx, w.Scope)
	if err != nil {
		return nil, exitCode, err
	}
	defer span.StopObserving(ctx) // when the command cannot run
	defer restoreNodes(ctx, w.Nodes)
	if err := beginNodes(ctx, w.Nodes, res); err != nil {
		return nil, exitCode, err
	}

	cmd := exec.CommandContext(ctx, path, w.Command[1:]...)
	cmd.Args[0] = w.Command[0]
	if len(w.Env) > 0 {
		cmd.Env = append(os.Environ(), w.Env...)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = orStd(w.Stdin, os.Stdin), orStdW(w.Stdout, os.Stdout), orStdW(w.Stderr, os.Stderr)
	// On Ctrl-C the terminal already signals the whole foreground group; this
	// covers SIGTERM to writeamp and non-terminal use: ask the command to stop
	// the way a user would, and kill it only if it will not.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	ownGroup(cmd)
	cmd.WaitDelay = w.GracePeriod
	w.logf("measuring: %s", strings.Join(shown, " "))
	start := time.Now()
	runErr := cmd.Run()
	elapsed := time.Since(start)
	interrupted := ctx.Err() != nil
	var ee *exec.ExitError
	switch {
	case runErr == nil:
		exitCode = 0
	case errors.As(runErr, &ee):
		exitCode = ee.ExitCode()
		if exitCode < 0 { // killed by a signal
			exitCode = 128 + signalNumber(ee)
		}
	default:
		return nil, exitCode, fmt.Errorf("command %q: %w", w.Command[0], runErr)
	}

	// From here on the window is over: finish the measurement even if
	// writeamp itself was interrupted, so the user sees what ran.
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*w.SettleTimeout+30*time.Second)
	defer cancel()
	delta, err := span.End(actx, Quiet(w.SettleTimeout))
	if err != nil {
		return nil, exitCode, err
	}
	st := workloads.Stats{Elapsed: elapsed, Operations: map[string]int64{}}
	main := ""
	switch {
	case w.Operations > 0:
		main = w.OperationName
		if main == "" {
			main = "operations"
		}
		st.Operations[main] = w.Operations
	case w.CountRowWrites:
		st.Operations["commands"] = 1
		main = "commands"
		if rows := rowWrites(delta); rows > 0 {
			st.Operations["row_writes"] = rows
			main = "row_writes"
		}
	}
	run := BuildRun(label, delta, st, main)
	run.Warnings = append(span.Warnings, run.Warnings...)
	run.Command = shown
	checkpointFact(run)
	span.AddToRun(run)
	run.ExitCode = &exitCode
	if exitCode != 0 {
		run.Warnings = append(run.Warnings, fmt.Sprintf("the command exited with status %d: the numbers cover what it did before it stopped", exitCode))
	}
	if interrupted {
		run.Partial = true
		run.Warnings = append(run.Warnings, "interrupted: the command was stopped before it finished")
	}
	if w.Vacuum && !interrupted {
		w.logf("vacuuming the measured tables")
		if err := w.Window.Vacuum(actx, run, w.Scope); err != nil {
			run.Warnings = append(run.Warnings, "vacuum: "+err.Error())
		}
	}
	if w.Operations == 0 && !w.CountRowWrites {
		run.Warnings = append(run.Warnings, "no operation count given (--operations): per-unit figures are per row changed (the report says which rows)")
	}
	predictStatements(actx, w.Window.DB, w.Window.Server, run)
	res.Notes = append(res.Notes, StatementNotes(run)...)
	res.Runs = append(res.Runs, *run)
	if err := endNodes(actx, w.Nodes, Quiet(w.SettleTimeout), st, main, res); err != nil {
		return res, exitCode, err
	}
	return res, exitCode, nil
}

// place opens the window where --checkpoint asks: "none" and "steady" tell
// the window not to CHECKPOINT; "steady" first checkpoints and runs the
// command once outside the window (its warm-up: no input, output passed
// through), so the pages it changes have had their full-page image. The
// returned func undoes what it set on the window's server.
func (w *Wrapped) place(ctx context.Context, cp, path string) (func(), error) {
	win := w.Window
	if cp == "before" {
		return func() {}, nil
	}
	if cp == "steady" {
		if st, ok := win.Dialect.(dialects.Settler); ok {
			for _, warn := range dialects.BeforeMeasure(ctx, st, win.DB, win.Server, w.Scope.Schemas) {
				w.logf("before the warm-up: %s", warn)
			}
		}
		w.logf("warming up outside the window: %s", strings.Join(RedactArgs(w.Command), " "))
		warm := exec.CommandContext(ctx, path, w.Command[1:]...)
		warm.Args[0] = w.Command[0]
		if len(w.Env) > 0 {
			warm.Env = append(os.Environ(), w.Env...)
		}
		warm.Stdout, warm.Stderr = orStdW(w.Stdout, os.Stdout), orStdW(w.Stderr, os.Stderr)
		warm.Cancel = func() error { return warm.Process.Signal(os.Interrupt) }
		ownGroup(warm)
		warm.WaitDelay = w.GracePeriod
		if err := warm.Run(); err != nil {
			return func() {}, fmt.Errorf("--checkpoint steady: the warm-up run of %q (outside the window) failed: %w", w.Command[0], err)
		}
	}
	prev := win.Server.Prop(dialects.PropNoCheckpoint)
	win.Server.SetProp(dialects.PropNoCheckpoint, "--checkpoint "+cp)
	return func() { win.Server.SetProp(dialects.PropNoCheckpoint, prev) }, nil
}

// rowWrites is the rows inserted, updated and deleted in the measured
// tables (rows_written where the server counts only their sum).
func rowWrites(d *collectors.Delta) int64 {
	var rows float64
	split := map[string]bool{}
	for k, m := range d.Values {
		if k.Level == collectors.Table && m.OK() && (k.Metric == "rows_inserted" || k.Metric == "rows_updated" || k.Metric == "rows_deleted") {
			rows += m.V()
			split[k.Object] = true
		}
	}
	for k, m := range d.Values {
		if k.Level == collectors.Table && m.OK() && k.Metric == "rows_written" && !split[k.Object] {
			rows += m.V()
		}
	}
	return int64(rows)
}

func orStd(r io.Reader, def *os.File) io.Reader {
	if r == nil {
		return def
	}
	return r
}

func orStdW(w io.Writer, def *os.File) io.Writer {
	if w == nil {
		return def
	}
	return w
}

// RedactArgs hides every secret among a wrapped command's arguments (the
// command line is written into results people share): see
// dialects.RedactArgv for the forms.
func RedactArgs(args []string) []string { return dialects.RedactArgv(args) }

func signalNumber(ee *exec.ExitError) int {
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return int(ws.Signal())
	}
	return 0
}
