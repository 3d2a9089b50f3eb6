package check

import (
	"io"
)

// writeCI writes what CI reads at the migration's lines: the GitHub
// annotations (under GitHub Actions) and the SARIF log (--sarif), for a
// check that measured and one that could not (its static warnings are
// known before anything runs).
func (o *Outcome) writeCI(w Outputs, runErr error) error {
	if w.Annotate {
		// Workflow commands are read from the step's output; a JSON or metrics report on
		// stdout stays parseable by putting them on stderr, which the runner
		// reads too.
		dst := w.Stdout
		if (w.Format == "json" || w.Format == "openmetrics") && (w.Report == "" || w.Report == "-") {
			dst = w.Stderr
		}
		if err := Annotate(orDiscard(dst), o.Problems()); err != nil {
			return err
		}
	}
	if w.SARIF != "" {
		return w.write("--sarif", w.SARIF, func(b io.Writer) error { return o.SARIF(b, runErr) })
	}
	return nil
}
