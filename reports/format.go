package reports

import (
	"strings"

	"github.com/writeamp/writeamp/result"
)

// Labels, units and display rules come from the metric catalogue
// (result.Lookup); numbers are written by result's formatters, so a table,
// the markdown, the html, the findings and plan write a unit the same way.

func info(name string) result.Info { i, _ := result.Lookup(name); return i }

func labelOf(name string) string { return info(name).Label }
func isRatio(name string) bool   { return info(name).IsRatio() }
func isBytes(name string) bool   { return info(name).IsBytes() }

// ownRate: a figure already per something, as its label says (entries per
// refresh, log bytes per expired session), is never divided by the
// operations a second time.
func ownRate(name string) bool { return strings.Contains(labelOf(name), " per ") }

// count writes a count of operations, rows or errors: 15,000.
func count(v float64) string { return result.FormatCount(v) }
