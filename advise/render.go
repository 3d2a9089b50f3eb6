package advise

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/dustin/go-humanize"
	"github.com/jedib0t/go-pretty/v6/table"

	"github.com/writeamp/writeamp/internal/safeio"
	"github.com/writeamp/writeamp/internal/termwidth"
)

// Formats are the --format values advise writes.
var Formats = []string{"table", "markdown", "html", "json"}

// Render writes the report in format, fitted to width (table; <= 0: unbounded).
func Render(w io.Writer, rep *Report, format string, width int) error {
	switch format {
	case "json":
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	case "markdown":
		return markdown(w, rep)
	case "html":
		return html(w, rep)
	case "table", "":
		return tableReport(w, rep, width)
	}
	return fmt.Errorf("unknown format %q (known: %s)", format, strings.Join(Formats, ", "))
}

// orDot formats a figure the server may not count: "·" when it does not.
func orDot[T any](p *T, format func(T) string) string {
	if p == nil {
		return "·"
	}
	return format(*p)
}

func percent(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) }

func fig(m Metric, which *float64) string {
	return orDot(which, func(v float64) string { return figure(m.Unit, v) })
}

func figure(unit string, v float64) string {
	switch unit {
	case "fraction":
		return percent(v)
	case "bytes":
		return humanize.IBytes(uint64(math0(v)))
	}
	if v >= 100 {
		return humanize.Commaf(float64(int64(v + 0.5)))
	}
	return fmt.Sprintf("%.3g", v)
}

func math0(v float64) float64 {
	if v < 0 {
		return 0
	}
	return v
}

// shown are the measured metrics in the order the reports list them.
var shown = []string{"log_bytes/op", "hot_ratio", "index_entries/op", "log_bytes_table/op", "pages_touched/op", "operations/s"}

func headline(rep *Report) []string {
	var out []string
	for _, r := range rep.Recommendations {
		out = append(out, fmt.Sprintf("%d. %s", r.Rank, r.Summary))
	}
	for _, r := range rep.Skipped {
		out = append(out, fmt.Sprintf("–  %s: skipped: %s", r.Change, oneLine(r.Error)))
	}
	return out
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func tableReport(w io.Writer, rep *Report, width int) error {
	tw := termwidth.NewWriter(w, width)
	fmt.Fprintf(tw, "writeamp advise · %s on %s\n", rep.Workload, rep.Server)
	if n := rep.Diagnosis.Noise; n != nil {
		fmt.Fprintf(tw, "  the workload measured twice with no change differed by %s in log bytes per %s (the noise a saving must exceed)\n", percent(*n), rep.PerOp)
	}
	fmt.Fprintf(tw, "\nfindings: measured on copies, largest saving of log bytes per %s first\n", rep.PerOp)
	for _, l := range headline(rep) {
		fmt.Fprintf(tw, "  %s\n", l)
	}
	if len(rep.Recommendations)+len(rep.Skipped) == 0 {
		fmt.Fprintln(tw, "  no change to propose")
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(tw, "  note: %s\n", n)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range rep.Recommendations {
		fmt.Fprintln(w)
		g := termwidth.Grid{Style: style(), Header: []string{"METRIC", "BEFORE", "AFTER", "BASIS"}, Right: map[int]bool{1: true, 2: true}, Max: map[int]int{3: 60}}
		g.Rows = append(g.Rows, termwidth.GridRow{Title: fmt.Sprintf("%d. %s (%s)", r.Rank, r.Change, r.Kind)})
		for _, k := range shown {
			m, ok := r.Measured[k]
			if !ok {
				continue
			}
			g.Rows = append(g.Rows, termwidth.GridRow{Cells: []string{k, fig(m, m.Before), fig(m, m.After), string(m.Exactness) + ": " + m.Source}})
		}
		if err := g.Render(w, width); err != nil {
			return err
		}
		tw := termwidth.NewWriter(w, width)
		for _, y := range r.Why {
			fmt.Fprintf(tw, "  why: %s\n", y)
		}
		for _, k := range r.Risks {
			fmt.Fprintf(tw, "  risk: %s\n", k)
		}
		for _, n := range r.Notes {
			fmt.Fprintf(tw, "  note: %s\n", n)
		}
		fmt.Fprintf(tw, "  up: %s\n  down: %s\n", oneLine(r.Migration.Up), oneLine(r.Migration.Down))
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	fmt.Fprintln(w)
	g := termwidth.Grid{Style: style(), Header: []string{"INDEX", "ENTRIES/OP", "SCANS WINDOW/DB", "WHY ENTRIES"}, Right: map[int]bool{1: true, 2: true}, Max: map[int]int{0: 34, 3: 50}}
	g.Rows = append(g.Rows, termwidth.GridRow{Title: "diagnosis: the indexes in the window, per " + rep.PerOp})
	for _, ix := range rep.Diagnosis.Indexes {
		name := ix.Table + "." + ix.Index
		switch ix.Constraint {
		case "":
		case ix.Index:
			name += " (constraint)"
		default:
			name += " (backs " + ix.Constraint + ")"
		}
		g.Rows = append(g.Rows, termwidth.GridRow{Cells: []string{name, orDot(ix.EntriesPerOp, entries), orDot(ix.Scans, scans) + " / " + orDot(ix.OriginalScans, dbScans), strings.Join(ix.Why, "; ")}})
	}
	return g.Render(w, width)
}

func entries(v float64) string { return fmt.Sprintf("%.3f", v) }
func scans(v float64) string   { return fmt.Sprintf("%.0f", v) }
func dbScans(v int64) string   { return fmt.Sprintf("%d", v) }

func style() table.Style {
	s := table.StyleLight
	s.Color = table.ColorOptions{}
	s.Options.SeparateRows = false
	return s
}

func markdown(w io.Writer, rep *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## writeamp advise · %s on %s\n\n", rep.Workload, rep.Server)
	for _, l := range headline(rep) {
		fmt.Fprintf(&b, "- %s\n", l)
	}
	if n := rep.Diagnosis.Noise; n != nil {
		fmt.Fprintf(&b, "\nNoise: the workload measured twice with no change differed by %s in log bytes per %s.\n", percent(*n), rep.PerOp)
	}
	for _, r := range rep.Recommendations {
		fmt.Fprintf(&b, "\n### %d. %s\n\n| metric | before | after | basis |\n|---|--:|--:|---|\n", r.Rank, r.Change)
		for _, k := range shown {
			if m, ok := r.Measured[k]; ok {
				fmt.Fprintf(&b, "| %s | %s | %s | %s: %s |\n", k, fig(m, m.Before), fig(m, m.After), m.Exactness, strings.ReplaceAll(m.Source, "|", "\\|"))
			}
		}
		b.WriteString("\n")
		for _, y := range r.Why {
			fmt.Fprintf(&b, "- why: %s\n", y)
		}
		for _, k := range r.Risks {
			fmt.Fprintf(&b, "- risk: %s\n", k)
		}
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "- note: %s\n", n)
		}
		fmt.Fprintf(&b, "\n```sql\n-- up\n%s-- down\n%s```\n", r.Migration.Up, r.Migration.Down)
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(&b, "\nNote: %s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMigrations writes NN_<name>.up.sql and .down.sql into dir, in rank
// order, ready for `writeamp check --migration`.
func WriteMigrations(dir string, rep *Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i := range rep.Recommendations {
		r := &rep.Recommendations[i]
		base := fmt.Sprintf("%02d_%s", r.Rank, fileName(Candidate{Kind: r.Kind, Object: r.Object, Change: r.Change}))
		for _, f := range []struct{ suffix, text string }{{".up.sql", r.Migration.Up}, {".down.sql", r.Migration.Down}} {
			p := filepath.Join(dir, base+f.suffix)
			head := fmt.Sprintf("-- writeamp advise: %s\n", r.Summary)
			if err := safeio.Write(nil, safeio.Target{Flag: "--out-dir", Path: p}, []byte(head+f.text)); err != nil {
				return err
			}
			r.Files = append(r.Files, p)
		}
	}
	return nil
}
