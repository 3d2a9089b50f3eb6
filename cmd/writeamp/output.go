package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"

	"github.com/writeamp/writeamp/reports"
	"github.com/writeamp/writeamp/result"
	"github.com/writeamp/writeamp/workloads"
)

// notesWriter is where progress notes go: stderr, or nowhere with --quiet.
func notesWriter(quiet bool) io.Writer {
	if quiet {
		return io.Discard
	}
	return os.Stderr
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

// emit renders the result to --output (written whole, then renamed, so a
// failure never leaves half a file) or to stdout.
func emit(stdout io.Writer, format, output string, res *result.Result) error {
	var buf bytes.Buffer
	color := output == "" && format == "table" && stdoutIsTerminal() && os.Getenv("NO_COLOR") == ""
	if err := reports.Render(&buf, format, res, reports.Options{Color: color}); err != nil {
		return err
	}
	if output == "" || output == "-" {
		_, err := stdout.Write(buf.Bytes())
		return err
	}
	dir := filepath.Dir(output)
	tmp, err := os.CreateTemp(dir, ".writeamp-*")
	if err != nil {
		return fmt.Errorf("--output: %w", err)
	}
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("--output: %w", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("--output: %w", err)
	}
	if err := os.Rename(tmp.Name(), output); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("--output: %w", err)
	}
	return nil
}
