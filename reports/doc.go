// Package reports renders results: a comparison model built once from the
// result JSON, and renderers (table, markdown, json) that only lay it out,
// so every format shows the same numbers with the same sources.
package reports
