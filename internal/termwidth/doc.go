// Package termwidth fits text reports to a terminal: the width to fit
// (Of), prose word-wrapped with a hanging indent (Wrap, Writer), and
// tables narrowed, wrapped or stacked (Grid).
package termwidth
