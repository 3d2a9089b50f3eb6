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
			OK       bool `json:"ok"`
			Complete bool `json:"complete"`
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(doc{r, r.OK(), r.Complete()})
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
			if it.Needed {
				role = "needed"
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
				if n.Without != "" {
					fmt.Fprintf(w, "%swithout: %s\n", pad, n.Without)
				}
			}
		}
		fmt.Fprintln(w)
	}
	var missNeeded, missOpt []string
	for _, it := range r.Items {
		if !it.Available && it.Kind != "version" {
			if it.Needed {
				missNeeded = append(missNeeded, it.Name)
			} else {
				missOpt = append(missOpt, it.Name)
			}
		}
	}
	switch {
	case len(missNeeded) > 0:
		fmt.Fprintf(w, "%sverdict: the refresh-token experiment cannot run here: missing %s (exit code 1)\n", b, strings.Join(missNeeded, ", "))
	case len(missOpt) > 0:
		fmt.Fprintf(w, "%sverdict: ready for the refresh-token experiment; without %s some numbers are derived or absent (see \"without\")\n", b, strings.Join(missOpt, ", "))
	default:
		fmt.Fprintf(w, "%sverdict: ready: every collector is available\n", b)
	}
	fmt.Fprintf(w, "%sneeded = the refresh-token experiment has no headline numbers without it; exit code 0 when every needed item is available (--strict: every item)\n", b)
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
