// Package collectors snapshots a server's own write counters and diffs two
// snapshots into the metrics of a measured window. Dialect folders hold one
// source per view, each file named after the view it reads: the catalog
// (which objects are in scope), counters, and marks (log positions).
//
// The package's files: set.go (what a source is, a dialect's set), take.go
// (a snapshot), diff.go (two snapshots into a Delta), interval.go (what is
// read from the log between them), scope.go (which objects).
package collectors
