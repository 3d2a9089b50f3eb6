package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"syscall"
	"time"

	"github.com/writeamp/writeamp/check"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/internal/kernelwait"
)

// Exit codes, documented in the README.
const (
	// Every command's codes are check's (0 pass, 1 a budget failed, 2 bad
	// input or could not measure, 3 the database is not as it was), so a
	// script reads any command's status the same way.
	exitFailed      = 2 // the measurement could not be completed
	exitUsage       = 2 // bad flags or input
	exitInterrupted = 130
	exitBrokenPipe  = 141 // 128 + SIGPIPE, as a shell reports a command killed by it
)

// usageError marks errors caused by what the user typed.
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// exitCoder is an error that sets the exit status itself: check's
// *check.ExitError (1 = a budget was exceeded, 2 = could not measure) and
// exitError.
type exitCoder interface{ ExitCode() int }

// exitError carries a command's own exit code to main (measure: the
// wrapped command's status; doctor: 1 = something the refresh-token
// experiment needs is missing; 2 = could not connect).
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }
func (e exitError) ExitCode() int { return e.code }

var (
	errInterrupted = errors.New("interrupted")
	errBrokenPipe  = errors.New("output closed (broken pipe)")
)

// pipeGuard stops the command, as Ctrl-C would, when the reader of stdout or
// stderr has gone (`writeamp run | head -2`): the run cleans up and exits
// 141 instead of dying of SIGPIPE with its schema, extension or throwaway
// server left behind.
// stop cancels the command's context the way Ctrl-C does.
type pipeGuard struct {
	w    io.Writer
	stop func(error)
}

func (g pipeGuard) Write(p []byte) (int, error) {
	n, err := g.w.Write(p)
	if errors.Is(err, syscall.EPIPE) {
		g.stop(errBrokenPipe)
	}
	return n, err
}

func main() {
	// SIGPIPE is ignored rather than caught: the kernel also raises it for a
	// write to a database socket the server closed, which is a lost
	// connection, not the user's reader going away. Ignored, a write to a
	// closed stdout or stderr returns EPIPE, which pipeGuard turns into a stop.
	signal.Ignore(syscall.SIGPIPE)
	tuneGC()
	ctx, cancel := context.WithCancelCause(context.Background())
	stderr := pipeGuard{os.Stderr, cancel}
	sigs := make(chan os.Signal, 4)
	// SIGHUP (a closed terminal or CI runner) and SIGQUIT stop writeamp the
	// same way: a check then still undoes its migration.
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	go onSignals(sigs, cancel, cleanupGrace, func() { os.Exit(exitInterrupted) }, stderr)
	cmd := newRootFor(&app{stderr: stderr, followWorkers: true})
	cmd.SetOut(pipeGuard{os.Stdout, cancel})
	cmd.SetErr(stderr)
	err := cmd.ExecuteContext(ctx)
	if err == nil {
		return
	}
	// Only pipeGuard's EPIPE: a database socket the server closed also
	// fails with EPIPE, and that is a lost connection (exit 2).
	if errors.Is(context.Cause(ctx), errBrokenPipe) {
		// Nobody reads the output any more: say so where it may still be read.
		fmt.Fprintln(stderr, "writeamp: "+errBrokenPipe.Error()+"; stopped after cleaning up")
		os.Exit(exitBrokenPipe)
	}
	fmt.Fprintln(stderr, "writeamp: "+err.Error())
	var ec exitCoder // check, doctor and measure: their own documented codes
	if errors.As(err, &ec) && (ctx.Err() == nil || ec.ExitCode() == check.ExitNotAsItWas) {
		// A database left not as it was outranks the interruption: CI
		// must not read it as a mere cancel.
		os.Exit(ec.ExitCode())
	}
	var ue usageError
	if errors.As(err, &ue) {
		os.Exit(exitUsage)
	}
	if ctx.Err() != nil {
		os.Exit(exitInterrupted)
	}
	os.Exit(exitFailed)
}

// cleanupGrace is how long after the first signal writeamp keeps
// cleaning up (a check's undo, a copy's drop, a run's schema) before a
// repeated signal makes it quit without finishing. CI runners cancel a job
// with SIGTERM to its whole process group and then again, and a terminal's
// impatient Ctrl-C comes twice: the second must not skip the undo.
const cleanupGrace = 30 * time.Second

// onSignals turns the first signal into a stop (cancel, as Ctrl-C), and
// keeps catching every later one: the default action of a repeated
// SIGINT/SIGTERM would kill writeamp in the middle of its cleanup. A later
// signal is acknowledged and arms quit for grace after the first signal;
// one that comes when grace has passed quits at once. SIGKILL stays the
// way out, and what it interrupts the next check or writeamp clean
// --drop finishes. Its messages go to stderr.
func onSignals(sigs <-chan os.Signal, cancel context.CancelCauseFunc, grace time.Duration, quit func(), stderr io.Writer) {
	s := <-sigs
	first := time.Now()
	fmt.Fprintf(stderr, "writeamp: %v: stopping; what writeamp changed is undone or dropped first (a repeated signal quits only %s after the first, kill -9 at once)\n", s, grace)
	cancel(errInterrupted)
	armed := false
	for s := range sigs {
		left := grace - time.Since(first)
		if left <= 0 {
			fmt.Fprintf(stderr, "writeamp: %v again after %s: quitting without finishing the cleanup; the next writeamp check, or writeamp clean --dsn … --drop, finishes it\n", s, grace)
			quit()
			return
		}
		fmt.Fprintf(stderr, "writeamp: %v again: still cleaning up; quitting without finishing in %s if not done by then (kill -9 quits now)\n", s, left.Round(time.Second))
		if !armed {
			armed = true
			time.AfterFunc(left, func() {
				fmt.Fprintf(stderr, "writeamp: cleanup not done %s after the first signal: quitting without finishing it; the next writeamp check, or writeamp clean --dsn … --drop, finishes it\n", grace)
				quit()
			})
		}
	}
}

// tuneGC lets the heap grow further between collections than Go's default
// (GOGC=100): writeamp lives for one command and holds a snapshot's
// counters at once, and with the default a snapshot of 10,000 indexes spent
// a third of its CPU time collecting garbage. A memory limit keeps the
// bigger heap bounded. GOGC or GOMEMLIMIT in the environment win.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(1 << 30)
	}
}

// limitMemory lowers the soft memory limit tuneGC set to what a command's
// input says its heap needs: under GOGC=400 a diff's heap grew to several
// times its size in RSS before the 1 GiB limit held it, where a limit above
// the peak costs a few collections near it. 64 MiB at least, where a small
// input's heap is mostly writeamp's own. GOMEMLIMIT in the environment wins
// (need is then not called).
func limitMemory(need func() int64) {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(max(need(), 64<<20))
	}
}

// followHeap holds a long command's soft memory limit at its live heap
// plus half of it, 16 MiB at least, and 32 MiB in all at least, until ctx
// ends, reading the live heap the last collection left every second. A
// run's live heap is a few MB plus the sessions it leaves to the
// expiration job; under GOGC=400 alone the garbage between collections was
// most of its RSS, more the longer the run. The floor is lower than
// limitMemory's 64 MiB: at 64 MiB a short run's peak RSS depended on
// whether a collection came before the heap reached the floor, and a lower
// floor kept it down for the same CPU time. Twice the live heap let a long
// run's peak grow well above a short one's; half the heap alone as
// headroom collected without end while the window was read (the limit is
// a second behind the heap), hence the 16 MiB. Measured with make bench
// (docs/performance.md). GOMEMLIMIT in the environment wins.
func followHeap(ctx context.Context) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	set := func() { debug.SetMemoryLimit(followLimit(liveHeap())) }
	set()
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				set()
			}
		}
	}()
}

// followLimit is followHeap's limit for a live heap.
func followLimit(live int64) int64 {
	return max(live+max(live/2, followHeadroom), followFloor)
}

// followFloor is followHeap's least limit, followHeadroom the least it
// leaves above the live heap.
const (
	followFloor    = 32 << 20
	followHeadroom = 16 << 20
)

// fitProcs sets Go's Ps for the workload's workers and, where that leaves
// one to spare, returns the option that lets the connections opened with
// it wait for the server in the kernel (kernelwait.Plan): a worker waits on
// its server for most of each operation, and every wait parked on Go's poller cost a futex
// hand-off and its monitor's wake-ups. Against pgbench on the same
// statements, waits on the poller cost well above pgbench's system CPU at
// any GOMAXPROCS, waits in the kernel about the same (measured with make
// bench, docs/performance.md). GOMAXPROCS in
// the environment wins; the kernel wait is then used only if it leaves a P
// to spare. Only the writeamp process does this (app.followWorkers).
func fitProcs(a *app, workers int, src source) dialects.OpenOption {
	if !a.followWorkers {
		return dialects.KernelWait(false)
	}
	_, canWait := src.dialect.(dialects.KernelWaiter)
	procs, wait := kernelwait.Plan(workers, runtime.NumCPU(), canWait)
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(procs)
	} else {
		wait = canWait && runtime.GOMAXPROCS(0) > max(1, workers)
	}
	return dialects.KernelWait(wait)
}

// heapLive collects garbage and returns the heap left.
func heapLive() int64 {
	runtime.GC()
	return liveHeap()
}

// liveHeap is the heap the last collection left.
func liveHeap() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}
