package ciout

import (
	"io"

	"github.com/writeamp/writeamp/check"
)

// writeCI writes what CI reads at the migration's lines: the GitHub
// annotations (under GitHub Actions) and the SARIF log (--sarif), for a
// check that measured and one that could not (its static warnings are
// known before anything runs).
func writeCI(o *check.Outcome, w Outputs, runErr error) error {
	if w.Annotate {
		// Workflow commands are read from the step's output; a JSON or metrics report on
		// stdout stays parseable by putting them on stderr, which the runner
		// reads too.
		dst := w.Stdout
		if (w.Format == "json" || w.Format == "openmetrics") && (w.Report == "" || w.Report == "-") {
			dst = w.Stderr
		}
		if err := Annotate(orDiscard(dst), Problems(o)); err != nil {
			return err
		}
	}
	if w.SARIF != "" {
		return w.write("--sarif", w.SARIF, func(b io.Writer) error { return SARIF(b, o, runErr) })
	}
	return nil
}
