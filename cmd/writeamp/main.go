// Command writeamp measures what a write workload costs a database.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// Exit codes, documented in the README.
const (
	exitOK     = 0
	exitFailed = 1 // the measurement could not be completed
	exitUsage  = 2 // bad flags or input
	exitBudget = 1 // reserved for `check`: a budget was exceeded
	_          = exitBudget
)

// usageError marks errors caused by what the user typed.
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cmd := newRoot()
	err := cmd.ExecuteContext(ctx)
	if err == nil {
		return
	}
	fmt.Fprintln(os.Stderr, "writeamp: "+err.Error())
	var ee exitError // check and doctor: their own documented codes
	if errors.As(err, &ee) && ctx.Err() == nil {
		os.Exit(ee.code)
	}
	var ue usageError
	if errors.As(err, &ue) {
		os.Exit(exitUsage)
	}
	if ctx.Err() != nil {
		os.Exit(130)
	}
	os.Exit(exitFailed)
}
