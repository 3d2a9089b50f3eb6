// Package heappeak samples the Go heap's peak while a piece of work runs,
// for the benchmarks that hold the WAL decoder to bounded memory.
package heappeak
