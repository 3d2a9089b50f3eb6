package ciout

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/writeamp/writeamp/check"
	"github.com/writeamp/writeamp/internal/safeio"
	"github.com/writeamp/writeamp/internal/termwidth"
	"github.com/writeamp/writeamp/reports"
)

// Formats are what a check's report is written in.
var Formats = []string{"table", "markdown", "json", "openmetrics"}

// Outputs says where a finished check writes what it found. Every file
// goes through safeio.Write: "" or "-" is Stdout for Report, JUnit and
// Result, and JUnit and Result are not written when "".
type Outputs struct {
	Format string // one of Formats
	Report string // --output
	JUnit  string // --junit
	Result string // --result: the before/after result JSON
	SARIF  string // --sarif: a SARIF 2.1.0 log of the findings
	Push   string // --push: a Pushgateway URL for the metrics (Families)
	// Annotate writes GitHub Actions annotations (GITHUB_ACTIONS=true).
	Annotate bool
	// StepSummary is $GITHUB_STEP_SUMMARY: a Markdown summary is appended
	// to it when set.
	StepSummary string
	Stdout      io.Writer
	// Width is what the table format fits (termwidth.Of of where the
	// report goes); 0: unbounded.
	Width int
	// Stderr gets the static warnings of a check that could not measure
	// (the report that would list them is not written); Log gets notes
	// (the headline of a pass, a step summary that could not be written).
	Stderr, Log io.Writer
}

// Write writes every output of a check that ran (runErr nil) or could not
// measure (runErr), and returns nil for a pass or a *check.ExitError. The JUnit
// report is written either way, so CI shows why a check could not measure;
// the report and the result only for a check that measured. An output that
// cannot be written never hides the verdict or the restore: both go to
// stderr, and the exit code is the verdict's or ExitBadInput, whichever is
// worse (never ExitBudget for a full disk).
func Write(o *check.Outcome, w Outputs, runErr error) error {
	if !slices.Contains(Formats, w.Format) {
		return &check.ExitError{Code: check.ExitBadInput, Err: fmt.Errorf("check: unknown format %q (use one of: %s)", w.Format, strings.Join(Formats, ", "))}
	}
	var writeErrs []string
	try := func(flag, path string, render func(io.Writer) error) {
		if err := w.write(flag, path, render); err != nil {
			writeErrs = append(writeErrs, err.Error())
		}
	}
	if w.JUnit != "" {
		try("--junit", w.JUnit, func(b io.Writer) error { return JUnit(b, o, runErr) })
	}
	if err := writeCI(o, w, runErr); err != nil {
		return err
	}
	if runErr != nil {
		if o.Restore != nil {
			// What was applied before the failure was undone (or not): the
			// user must know either way.
			runErr = fmt.Errorf("%w\n%s", runErr, strings.Join(o.Restore.Lines(), "\n"))
		}
		w.summary("### writeamp check: could not measure\n\n" + runErr.Error() + "\n\n" + check.ExitCodes + "\n")
		for _, s := range o.Static {
			fmt.Fprintln(orDiscard(w.Stderr), "warning: "+s.Text)
		}
		if len(writeErrs) > 0 {
			runErr = fmt.Errorf("%w\n%s", runErr, strings.Join(writeErrs, "\n"))
		}
		return &check.ExitError{Code: o.ExitWith(runErr), Err: runErr}
	}
	try("--output", w.Report, func(b io.Writer) error { return render(b, o, w.Format, w.Width) })
	if w.Result != "" {
		try("--result", w.Result, func(b io.Writer) error { finite(o.Result); return reports.JSON(b, o.Result) })
	}
	if w.Push != "" {
		if err := reports.Push(context.Background(), w.Push, Families(o)); err != nil {
			return err
		}
	}
	if w.StepSummary != "" {
		var sb bytes.Buffer
		if err := render(&sb, o, "markdown", 0); err == nil {
			w.summary(sb.String() + "\n" + check.ExitCodes + "\n")
		}
	}
	headline := strings.TrimPrefix(o.Headline(), "writeamp check: ")
	code := o.Exit()
	if len(writeErrs) > 0 {
		// The report may be what failed: the verdict and the restore still
		// reach the user.
		var lines []string
		if o.Restore != nil {
			lines = o.Restore.Lines()
		}
		fmt.Fprintln(orDiscard(w.Stderr), o.Headline())
		for _, l := range lines {
			fmt.Fprintln(orDiscard(w.Stderr), l)
		}
		return &check.ExitError{Code: max(code, check.ExitBadInput), Err: fmt.Errorf("%s; but an output could not be written: %s", headline, strings.Join(writeErrs, "; "))}
	}
	if code != check.ExitPass {
		return &check.ExitError{Code: code, Err: fmt.Errorf("%s", headline)}
	}
	fmt.Fprintln(orDiscard(w.Log), o.Headline())
	return nil
}

// render writes the report: the check document for json, else the
// verdict, a verdict per budget, then the comparison; the table format
// fitted to width (0: unbounded).
func render(w io.Writer, o *check.Outcome, format string, width int) error {
	switch format {
	case "json":
		return JSON(w, o)
	case "openmetrics":
		return openMetrics(w, o)
	}
	markdown := format == "markdown"
	// A report is read from its first line: the verdict leads.
	if markdown {
		fmt.Fprintf(w, "### %s\n", o.Headline())
	} else {
		tw := termwidth.NewWriter(w, width)
		defer tw.Flush()
		w = tw
		fmt.Fprintf(w, "%s\n", o.Headline())
	}
	// Then which budget failed and why, the restore included; the whole
	// comparison they were judged on follows for whoever reads on.
	renderVerdicts(w, o, markdown, false, width)
	if o.Result != nil {
		fmt.Fprintln(w)
		if err := reports.Render(w, format, o.Result, reports.Options{Width: width}); err != nil {
			return err
		}
	}
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
