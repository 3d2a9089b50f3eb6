// Package workloads is what a built-in workload is and the machinery every
// one shares: the registry `writeamp run` is driven from, the optional
// capabilities a workload may have (its own flags, statement effects,
// leftovers, --keep), and the generic runner (runner.go) that owns the
// workers, their connections, retries, latency histograms and progress.
// A workload itself is its variants, operations, statements and flags.
package workloads
