package check

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/writeamp/writeamp/check/sqlfile"
)

// RuleIndexOnUpdatedColumn is the static warning's rule: the migration
// indexes a column the workload updates.
const RuleIndexOnUpdatedColumn = "index-on-updated-column"

// SuppressibleRules are the rules a suppression may name. A budget is not
// among them: a budget a team does not want to fail on is made advisory,
// so its verdict is still measured and shown.
var SuppressibleRules = []string{RuleIndexOnUpdatedColumn}

// Suppression silences one rule's finding, with the reason a reviewer reads.
type Suppression struct {
	Rule   string
	Reason string
	// Path and Line: where it was written. Inline ones (-- writeamp:allow)
	// apply to the statement that starts on or after Line in Path; a
	// config file's apply to every migration file matching Path (a glob).
	Path   string
	Line   int
	Inline bool
}

// inlineAllow is "-- writeamp:allow RULE reason: why" in a SQL comment.
var inlineAllow = regexp.MustCompile(`--\s*writeamp:allow\b(.*)$`)

// InlineSuppressions reads the -- writeamp:allow comments of the files. A
// suppression must say why (reason: …) and name a known rule: otherwise
// the error names the file and line, and nothing is measured.
func InlineSuppressions(files []sqlfile.File) ([]Suppression, error) {
	var out []Suppression
	var bad []string
	for _, f := range files {
		for i, line := range strings.Split(f.Text, "\n") {
			m := inlineAllow.FindStringSubmatch(strings.TrimRight(line, "\r"))
			if m == nil {
				continue
			}
			at := fmt.Sprintf("%s:%d", f.Path, i+1)
			rest := strings.TrimSpace(m[1])
			rule, reason, hasReason := strings.Cut(rest, "reason:")
			rule, reason = strings.TrimSpace(rule), strings.TrimSpace(reason)
			switch {
			case rule == "":
				bad = append(bad, fmt.Sprintf("%s: -- writeamp:allow names no rule (known: %s)", at, strings.Join(SuppressibleRules, ", ")))
			case strings.ContainsAny(rule, " \t"):
				bad = append(bad, fmt.Sprintf("%s: -- writeamp:allow %s: one rule per comment, then reason: … (known rules: %s)", at, rule, strings.Join(SuppressibleRules, ", ")))
			case !slices.Contains(SuppressibleRules, rule):
				bad = append(bad, fmt.Sprintf("%s: -- writeamp:allow %s: unknown rule (known: %s)", at, rule, strings.Join(SuppressibleRules, ", ")))
			case !hasReason || reason == "":
				bad = append(bad, fmt.Sprintf("%s: -- writeamp:allow %s has no reason: write why it is safe, e.g. -- writeamp:allow %s reason: the column is updated once per row, at creation", at, rule, rule))
			default:
				out = append(out, Suppression{Rule: rule, Reason: reason, Path: f.Path, Line: i + 1, Inline: true})
			}
		}
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(bad, "\n"))
	}
	return out, nil
}

// covers reports whether s silences rule for the statement of path that
// starts at line, given the statement lines of that file.
func (s Suppression) covers(rule, path string, line int, starts []int) bool {
	if s.Rule != rule {
		return false
	}
	if !s.Inline {
		// A config file's glob: absolute (resolved against the file's
		// directory), or a base name.
		if !strings.Contains(s.Path, string(filepath.Separator)) {
			ok, _ := filepath.Match(s.Path, filepath.Base(path))
			return ok
		}
		abs, _ := filepath.Abs(path)
		ok, _ := filepath.Match(s.Path, abs)
		return ok
	}
	if path != s.Path {
		return false
	}
	// The statement the comment is above (or on): the first starting at or
	// after the comment's line.
	for _, st := range starts {
		if st >= s.Line {
			return st == line
		}
	}
	return false
}

// suppress splits warnings into those shown and those a suppression
// silences (kept, with the suppression, for SARIF and the report).
func suppress(ws []Warning, sups []Suppression, files []sqlfile.File) (shown, silenced []Warning) {
	starts := map[string][]int{}
	for _, f := range files {
		for _, st := range f.Statements {
			starts[f.Path] = append(starts[f.Path], st.Line)
		}
	}
	for _, w := range ws {
		for _, s := range sups {
			if s.covers(RuleIndexOnUpdatedColumn, w.IndexSource, w.Line, starts[w.IndexSource]) {
				w.Suppressed = &s
				break
			}
		}
		if w.Suppressed != nil {
			silenced = append(silenced, w)
		} else {
			shown = append(shown, w)
		}
	}
	return shown, silenced
}
