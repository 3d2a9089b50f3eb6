package doctor

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/writeamp/writeamp/dialects"
)

// Formats are what Render writes.
var Formats = []string{"table", "markdown", "json"}

// Render writes the report in one of Formats.
func Render(w io.Writer, format string, r *Report) error {
	if format == "json" {
		type doc struct {
			*Report
			OK       bool      `json:"ok"`
			Complete bool      `json:"complete"`
			Verdicts []Verdict `json:"verdicts"`
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(doc{r, r.OK(), r.Complete(), r.Verdicts()})
	}
	md := format == "markdown"
	b := ""
	if md {
		b = "- "
		fmt.Fprintf(w, "### writeamp doctor · %s\n\n", r.Server)
	} else {
		fmt.Fprintf(w, "writeamp doctor · %s\n", r.Server)
	}
	fmt.Fprintf(w, "%sdatabase %s as %s (%s)\n\n", b, r.Server.Database, r.Server.User, r.Where)
	// A caution is said in full once, then referred to.
	cautioned := map[string]string{}
	caution := func(pad string, texts []string, where string) {
		for _, text := range texts {
			if first, ok := cautioned[text]; ok {
				fmt.Fprintf(w, "%scaution: as for %s above\n", pad, first)
				continue
			}
			cautioned[text] = where
			fmt.Fprintf(w, "%scaution: %s\n", pad, text)
		}
	}
	section := func(title string, kinds ...string) {
		var items []Item
		for _, it := range r.Items {
			for _, k := range kinds {
				if it.Kind == k {
					items = append(items, it)
				}
			}
		}
		if len(items) == 0 {
			return
		}
		fmt.Fprintln(w, b+title)
		width := 0
		for _, it := range items {
			width = max(width, len(it.Name))
		}
		for _, it := range items {
			status := "available"
			switch {
			case !it.Available && it.Kind == "version":
				status = "n/a"
			case !it.Available:
				status = "MISSING"
			}
			role := "optional"
			if it.For != "" {
				role = it.For
			}
			desc := it.Gives
			fmt.Fprintf(w, "%s  %-9s  %-*s  %-8s  %s\n", b, status, width, it.Name, role, desc)
			if !it.Available {
				pad := b + "  " + strings.Repeat(" ", 11)
				if it.Reason != "" {
					fmt.Fprintf(w, "%swhy:     %s\n", pad, it.Reason)
				}
				if it.Fix != "" {
					fmt.Fprintf(w, "%sfix:     %s\n", pad, it.Fix)
				}
				caution(pad, it.Cautions, it.Name)
				if it.Without != "" {
					fmt.Fprintf(w, "%swithout: %s\n", pad, it.Without)
				}
			}
		}
		fmt.Fprintln(w)
	}
	section("collectors (what each source view gives):", "collector", "interval collector")
	section("settings and privileges:", "capability", "privilege")
	section("not in this server version:", "version")
	if len(r.Needs) > 0 {
		fmt.Fprintf(w, "%swhat each number needs (in %s's own terms):\n", b, vendor(r.Server))
		for _, n := range r.Needs {
			status := map[string]string{"available": "available", "missing": "MISSING", "not checked": "unchecked"}[n.Status]
			fmt.Fprintf(w, "%s  %-9s  %s\n", b, status, n.Numbers)
			pad := b + "  " + strings.Repeat(" ", 11)
			fmt.Fprintf(w, "%sneeds:   %s\n", pad, n.Privilege)
			if n.Status == "missing" {
				if n.Why != "" {
					fmt.Fprintf(w, "%swhy:     %s\n", pad, n.Why)
				}
				caution(pad, n.Cautions, "that row")
				if n.Without != "" {
					fmt.Fprintf(w, "%swithout: %s\n", pad, n.Without)
				}
			}
		}
		fmt.Fprintln(w)
	}
	var missOpt []string
	for _, it := range r.Items {
		if !it.Available && it.Kind != "version" && it.For == "" {
			missOpt = append(missOpt, it.Name)
		}
	}
	fmt.Fprintf(w, "%swhat works here:\n", b)
	var works, not []string
	for _, v := range r.Verdicts() {
		line := "works"
		if v.Works {
			works = append(works, v.For)
		} else {
			not = append(not, v.For)
			line = "CANNOT WORK: missing " + strings.Join(v.Missing, ", ")
			if v.For == "check" {
				line = "CANNOT WORK with its built-in workload: missing " + strings.Join(v.Missing, ", ")
			}
		}
		switch {
		case v.Note != "" && v.Works:
			line += " (" + v.Note + ")"
		case v.Note != "":
			line += "; " + v.Note
		}
		fmt.Fprintf(w, "%s  %-7s  %s\n", b, v.For, line)
	}
	if len(missOpt) > 0 {
		fmt.Fprintf(w, "%s  without %s some numbers are derived or absent (see \"without\")\n", b, strings.Join(missOpt, ", "))
	}
	fmt.Fprintln(w)
	asked, code := r.asked(), 0
	if !r.OK() || r.Strict && !r.Complete() {
		code = 1
	}
	switch {
	case len(works) == 0:
		fmt.Fprintf(w, "%sverdict: nothing works here (exit code 1)\n", b)
	case r.For == "":
		verb := "works"
		if len(works) > 1 {
			verb = "work"
		}
		fmt.Fprintf(w, "%sverdict: %s %s here", b, strings.Join(works, ", "), verb)
		if len(not) > 0 {
			fmt.Fprintf(w, "; %s cannot", strings.Join(not, ", "))
		}
		if r.Strict && !r.Complete() {
			fmt.Fprint(w, "; --strict: not every item is available")
		}
		fmt.Fprintf(w, " (exit code %d)\n", code)
	case code == 0:
		fmt.Fprintf(w, "%sverdict: %s works here (exit code 0)\n", b, asked)
	case !r.OK() && asked == "check":
		fmt.Fprintf(w, "%sverdict: check with its built-in workload cannot work here: missing %s (exit code 1)\n", b, strings.Join(r.missingFor(asked), ", "))
	case !r.OK():
		fmt.Fprintf(w, "%sverdict: %s cannot work here: missing %s (exit code 1)\n", b, asked, strings.Join(r.missingFor(asked), ", "))
	default:
		fmt.Fprintf(w, "%sverdict: %s works here, but --strict: not every item is available (exit code 1)\n", b, asked)
	}
	fmt.Fprintf(w, "%smeasure, run, check = the first command that cannot work without the item; exit code 0 when %s works (--for; --strict: every item)\n", b, asked)
	return nil
}

// vendor names the product whose terms the privileges are in.
func vendor(s dialects.Server) string {
	switch {
	case s.Flavor == "mariadb":
		return "MariaDB"
	case s.Dialect == "mysql":
		return "MySQL"
	case s.Dialect == "postgres":
		return "PostgreSQL"
	case s.Dialect == "sqlserver":
		return "SQL Server"
	case s.Dialect == "oracle":
		return "Oracle"
	}
	return s.Dialect
}
