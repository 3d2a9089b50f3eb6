package check

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/writeamp/writeamp/internal/safeio"
	"github.com/writeamp/writeamp/reports"
)

// Formats are what a check's report is written in.
var Formats = []string{"table", "markdown", "json"}

// Outputs says where a finished check writes what it found. Every file
// goes through safeio.Write: "" or "-" is Stdout for Report, JUnit and
// Result, and JUnit and Result are not written when "".
type Outputs struct {
	Format string // one of Formats
	Report string // --output
	JUnit  string // --junit
	Result string // --result: the before/after result JSON
	// StepSummary is $GITHUB_STEP_SUMMARY: a Markdown summary is appended
	// to it when set.
	StepSummary string
	Stdout      io.Writer
	// Stderr gets the static warnings of a check that could not measure
	// (the report that would list them is not written); Log gets notes
	// (the headline of a pass, a step summary that could not be written).
	Stderr, Log io.Writer
}

// ExitError is a check that did not pass, with its documented exit code:
// 1 a budget was exceeded, 2 it could not measure (bad input, a failing
// migration or command, a budget that could not be evaluated).
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// ExitCode is the process's exit status for this error.
func (e *ExitError) ExitCode() int { return e.Code }

// Write writes every output of a check that ran (runErr nil) or could not
// measure (runErr), and returns nil for a pass or an *ExitError. The JUnit
// report is written either way, so CI shows why a check could not measure;
// the report and the result only for a check that measured.
func (o *Outcome) Write(w Outputs, runErr error) error {
	if !slices.Contains(Formats, w.Format) {
		return fmt.Errorf("check: unknown format %q (use one of: %s)", w.Format, strings.Join(Formats, ", "))
	}
	if w.JUnit != "" {
		if err := w.write("--junit", w.JUnit, func(b io.Writer) error { return o.JUnit(b, runErr) }); err != nil {
			return err
		}
	}
	if runErr != nil {
		if o.Restore != nil {
			// What was applied before the failure was undone (or not): the
			// user must know either way.
			runErr = fmt.Errorf("%w\n%s", runErr, strings.Join(o.Restore.Lines(), "\n"))
		}
		w.summary("### writeamp check: could not measure\n\n" + runErr.Error() + "\n")
		for _, s := range o.Static {
			fmt.Fprintln(orDiscard(w.Stderr), "warning: "+s.Text)
		}
		return &ExitError{Code: 2, Err: runErr}
	}
	if err := w.write("--output", w.Report, func(b io.Writer) error { return o.render(b, w.Format) }); err != nil {
		return err
	}
	if w.Result != "" {
		if err := w.write("--result", w.Result, func(b io.Writer) error { return reports.JSON(b, o.Result) }); err != nil {
			return err
		}
	}
	if w.StepSummary != "" {
		var sb bytes.Buffer
		if err := o.render(&sb, "markdown"); err != nil {
			return err
		}
		w.summary(sb.String())
	}
	headline := strings.TrimPrefix(o.Headline(), "writeamp check: ")
	if code := o.Exit(); code != 0 {
		return &ExitError{Code: code, Err: fmt.Errorf("%s", headline)}
	}
	fmt.Fprintln(orDiscard(w.Log), o.Headline())
	return nil
}

// render writes the report: the check document for json, else the
// comparison and a verdict per budget.
func (o *Outcome) render(w io.Writer, format string) error {
	if format == "json" {
		return o.JSON(w)
	}
	if o.Result != nil {
		if err := reports.Render(w, format, o.Result, reports.Options{}); err != nil {
			return err
		}
	}
	o.RenderVerdicts(w, format == "markdown")
	return nil
}

// write renders one output whole, then writes it: a render that fails
// leaves the file as it was.
func (w Outputs) write(flag, path string, render func(io.Writer) error) error {
	var b bytes.Buffer
	if err := render(&b); err != nil {
		return err
	}
	return safeio.Write(w.Stdout, safeio.Target{Flag: flag, Path: path}, b.Bytes())
}

// summary appends to the step summary; one that cannot be written is a
// note, not a failed check.
func (w Outputs) summary(text string) {
	if w.StepSummary == "" {
		return
	}
	t := safeio.Target{Flag: "GITHUB_STEP_SUMMARY", Path: w.StepSummary, Append: true}
	if err := safeio.Write(nil, t, []byte(text)); err != nil {
		fmt.Fprintf(orDiscard(w.Log), "warning: %v\n", err)
	}
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}
