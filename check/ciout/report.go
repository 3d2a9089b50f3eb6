package ciout

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/jedib0t/go-pretty/v6/table"

	"github.com/writeamp/writeamp/budget"
	"github.com/writeamp/writeamp/check"
	"github.com/writeamp/writeamp/check/restore"
	"github.com/writeamp/writeamp/internal/termwidth"
	"github.com/writeamp/writeamp/reports"
	"github.com/writeamp/writeamp/result"
)

func where(v budget.Verdict) string {
	switch v.Level {
	case "database":
		return "database"
	case "":
		return "—"
	}
	return v.Level + " " + v.Object
}

func val(b *float64, v budget.Verdict) string {
	if b == nil {
		return "n/a"
	}
	bb, err := budget.Parse(v.Budget)
	if err != nil {
		return fmt.Sprint(*b)
	}
	bb.Kind = budget.Absolute
	return budget.Format(bb, *b)
}

// RenderVerdicts writes the headline, the static warnings and one line per verdict.
func RenderVerdicts(w io.Writer, o *check.Outcome, markdown bool) {
	renderVerdicts(w, o, markdown, true, 0)
}

// renderVerdicts is RenderVerdicts, with the headline only when asked (a
// markdown report starts with it instead).
func renderVerdicts(w io.Writer, o *check.Outcome, markdown, headline bool, width int) {
	bullet := ""
	switch {
	case markdown:
		bullet = "- "
		if headline {
			fmt.Fprintf(w, "\n### %s\n\n", o.Headline())
		} else {
			fmt.Fprintln(w)
		}
	case headline:
		fmt.Fprintf(w, "\n%s\n\n", o.Headline())
	default:
		fmt.Fprintln(w)
	}
	if len(o.Verdicts) == 0 {
		renderStaticAndRestore(w, o, bullet)
		return
	}
	head := []string{"budget", "on", "before", "after", "compared", "verdict", "basis"}
	var rows [][]string
	for _, v := range o.Verdicts {
		cmp := v.Message
		if v.Compared != nil {
			cmp, _, _ = strings.Cut(v.Message, ": ")
		}
		rows = append(rows, []string{v.Budget, where(v), val(v.Before, v) + spreadOf(v.BeforeRange, v), val(v.After, v) + spreadOf(v.AfterRange, v), cmp, strings.ToUpper(string(v.Status)), string(v.Exactness)})
	}
	st := table.StyleLight
	st.Color = table.ColorOptions{}
	if markdown {
		t := table.NewWriter()
		t.SetOutputMirror(w)
		t.SetStyle(st)
		t.AppendHeader(table.Row{"budget", "on", "before", "after", "compared", "verdict", "basis"})
		for _, r := range rows {
			row := table.Row{}
			for _, c := range r {
				row = append(row, c)
			}
			t.AppendRow(row)
		}
		t.RenderMarkdown()
	} else {
		g := termwidth.Grid{Style: st, Header: head}
		for _, r := range rows {
			g.Rows = append(g.Rows, termwidth.GridRow{Cells: r})
		}
		g.Render(w, width)
	}
	var hints []string
	for _, v := range o.Verdicts {
		for _, h := range v.Hints {
			hints = append(hints, fmt.Sprintf("%s on %s: %s", v.Budget, where(v), h))
		}
		if v.Status == budget.Fail {
			for _, s := range o.Static {
				if v.Level == "table" && strings.EqualFold(s.Table, v.Object) || v.Level == "index" && strings.EqualFold(s.Index, v.Object) {
					hints = append(hints, fmt.Sprintf("%s on %s: index %s indexes %s.%s, which the workload updates (%s)", v.Budget, where(v), s.Index, s.Table, s.Column, s.Statement))
				}
			}
		}
	}
	if len(hints) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, bullet+"why:")
		for _, h := range result.Unique(hints) {
			fmt.Fprintf(w, "%s  - %s\n", bullet, h)
		}
	}
	fmt.Fprintln(w)
	// What the verdicts rest on: the static warnings, and whether the
	// database is as it was.
	renderStaticAndRestore(w, o, bullet)
	for _, v := range o.Verdicts {
		if strings.Contains(v.Budget, "/op") {
			if o.PerOp == "command" {
				fmt.Fprintln(w, bullet+"/op is per command: "+noRowsWhy(o)+" (see the notes), so each side's figures are divided by its one run of the command")
			} else {
				fmt.Fprintln(w, bullet+"/op is per "+o.PerOp)
			}
			break
		}
	}
	fmt.Fprintln(w, bullet+"budgets compare the after run (migration applied) with the before run; relative changes in %, ratios as % of updates; "+
		"with --repeat the medians, [lowest to highest] of the repetitions beside them; "+check.ExitCodes)
}

// renderStaticAndRestore writes the static check's warnings and the
// restore's lines, each block followed by a blank line.
func renderStaticAndRestore(w io.Writer, o *check.Outcome, bullet string) {
	if len(o.Static) > 0 {
		fmt.Fprintln(w, bullet+"static check (before running):")
		for _, s := range o.Static {
			fmt.Fprintf(w, "%s  ! %s\n", bullet, s.Text)
		}
		fmt.Fprintln(w)
	}
	if o.Restore != nil {
		for i, l := range o.Restore.Lines() {
			if i == 0 {
				fmt.Fprintln(w, bullet+l)
			} else {
				fmt.Fprintln(w, bullet+"  "+strings.TrimSpace(l))
			}
		}
		fmt.Fprintln(w)
	}
}

// noRowsWhy is why a check's /op is per command: no rows written per
// table to divide by, for the server's reason or the command's.
func noRowsWhy(o *check.Outcome) string {
	var cols []reports.Column
	if o.Result != nil {
		for i := range o.Result.Runs {
			cols = append(cols, reports.Column{Run: &o.Result.Runs[i]})
		}
	}
	return strings.Replace(reports.NoTableRowsWhy(cols), "the workload", "the command", 1)
}

// spreadOf shows a side's range over the repetitions beside its median.
func spreadOf(r *[2]float64, v budget.Verdict) string {
	if r == nil {
		return ""
	}
	lo, hi := r[0], r[1]
	return " [" + val(&lo, v) + " to " + val(&hi, v) + "]"
}

// Document is the JSON output of check.
type Document struct {
	Check    string               `json:"check"` // pass, fail, unknown
	Exit     int                  `json:"exit_code"`
	Budgets  []budget.Verdict     `json:"budgets"`
	Warnings []string             `json:"static_warnings,omitempty"`
	Restore  *restore.Restoration `json:"restore,omitempty"`
	// Repetitions are every run of each side (--repeat); Result has their medians.
	Repetitions *check.Repetitions `json:"repetitions,omitempty"`
	Result      *result.Result     `json:"result"`
}

// JSON writes the check document.
func JSON(w io.Writer, o *check.Outcome) error {
	d := Document{Check: strings.ToLower(o.VerdictWord()), Exit: o.Exit(), Budgets: o.Verdicts, Result: o.Result, Restore: o.Restore, Repetitions: o.Repetitions}
	if o.Result != nil {
		d.Result = reports.FindingsOf(o.Result) // the before/after findings and change column, as every result file has them
	}
	if d.Budgets == nil {
		d.Budgets = []budget.Verdict{}
	}
	for _, s := range o.Static {
		d.Warnings = append(d.Warnings, s.Text)
	}
	finite(&d)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}

type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Cases    []junitCase `xml:"testcase"`
	Out      string      `xml:"system-out,omitempty"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

// JUnit writes one test case per verdict, for CI systems that read JUnit XML.
func JUnit(w io.Writer, o *check.Outcome, err error) error {
	s := junitSuite{Name: "writeamp check"}
	for _, v := range o.Verdicts {
		c := junitCase{Name: v.Budget + " on " + where(v), Classname: "writeamp.check"}
		body := strings.Join(append([]string{v.Message}, v.Hints...), "\n")
		switch v.Status {
		case budget.Fail:
			s.Failures++
			c.Failure = &junitProblem{Message: v.Message, Body: body}
		case budget.Unknown:
			s.Errors++
			c.Error = &junitProblem{Message: v.Message, Body: body}
		}
		s.Cases = append(s.Cases, c)
	}
	if err != nil {
		s.Errors++
		s.Cases = append(s.Cases, junitCase{Name: "measure", Classname: "writeamp.check", Error: &junitProblem{Message: err.Error()}})
	}
	if r := o.Restore; r != nil {
		c := junitCase{Name: "restore (" + r.Method + ")", Classname: "writeamp.check"}
		if !r.OK() {
			s.Errors++
			c.Error = &junitProblem{Message: r.Sentence(), Body: strings.Join(r.Lines(), "\n")}
		}
		s.Cases = append(s.Cases, c)
	}
	s.Tests = len(s.Cases)
	var out []string
	for _, st := range o.Static {
		out = append(out, "static check: "+st.Text)
	}
	out = append(out, fmt.Sprintf("exit code %d (%s)", o.ExitWith(err), check.ExitCodes))
	s.Out = strings.Join(out, "\n")
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(junitSuites{Suites: []junitSuite{s}}); err != nil {
		return err
	}
	_, err = io.WriteString(w, "\n")
	return err
}
