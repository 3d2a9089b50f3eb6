package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/mattn/go-isatty"
	dto "github.com/prometheus/client_model/go"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/writeamp/writeamp/internal/safeio"
	"github.com/writeamp/writeamp/internal/termwidth"
	"github.com/writeamp/writeamp/reports"
	"github.com/writeamp/writeamp/result"
	"github.com/writeamp/writeamp/workloads"
)

// notes is where progress notes go: the invocation's stderr, or nowhere
// with --quiet.
func (a *app) notes(quiet bool) io.Writer {
	if quiet {
		return io.Discard
	}
	return a.stderr
}

func stderrIsTerminal() bool {
	fd := os.Stderr.Fd()
	return isatty.IsTerminal(fd) || isatty.IsCygwinTerminal(fd)
}

func stdoutIsTerminal() bool {
	fd := os.Stdout.Fd()
	return isatty.IsTerminal(fd) || isatty.IsCygwinTerminal(fd)
}

// progressFor shows a bar with operations/s on stderr, only on a terminal.
func progressFor(enabled bool) func(string, int64) (workloads.Progress, func()) {
	if !enabled || !stderrIsTerminal() {
		return nil
	}
	return func(variant string, total int64) (workloads.Progress, func()) {
		bar := progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(os.Stderr),
			progressbar.OptionSetDescription(fmt.Sprintf("%-9s", variant)),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("ops"),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionSetWidth(30),
			progressbar.OptionClearOnFinish(),
		)
		p := &barProgress{bar: bar}
		return p, func() { bar.Finish() }
	}
}

type barProgress struct {
	mu  sync.Mutex
	bar *progressbar.ProgressBar
}

func (b *barProgress) Add(n int) {
	b.mu.Lock()
	b.bar.Add(n)
	b.mu.Unlock()
}

// emit renders the result to --output, or to stdout for "" and "-", and
// pushes its metrics to --push's Pushgateway when given.
func emit(cmd *cobra.Command, format, output string, res *result.Result) error {
	color := output == "" && format == "table" && stdoutIsTerminal() && os.Getenv("NO_COLOR") == ""
	// Rendered straight into the output: a large result's JSON held in a
	// buffer first was one more copy of the whole document.
	err := safeio.Stream(cmd.OutOrStdout(), safeio.Target{Flag: "--output", Path: output}, func(w io.Writer) error {
		return reports.Render(w, format, res, reports.Options{Color: color, Top: topOption(cmd), Width: outputWidth(output)})
	})
	if err != nil {
		return err
	}
	return pushResult(cmd, func() []*dto.MetricFamily { return reports.Families(res) })
}

// outputWidth is the width a table report fits: the terminal's when it
// goes to stdout and stdout is one, else $COLUMNS, else 0 (unbounded).
func outputWidth(output string) int {
	if output == "" || output == "-" {
		return termwidth.Of(os.Stdout)
	}
	return termwidth.FromEnv()
}

// writeOutput writes a report or file a command was asked for, through
// safeio.Write (the one writer; see there): stdout for "" and "-".
func writeOutput(stdout io.Writer, flag, output string, data []byte) error {
	return safeio.Write(stdout, safeio.Target{Flag: flag, Path: output}, data)
}
