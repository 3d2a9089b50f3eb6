// Package demo is a second built-in workload that exists only for tests:
// it shows that a workload is its own package (variants, statements, flags,
// operations) plus the one line that imports it, and that the runner, the
// owned-schema lifecycle and `writeamp run` need nothing else. It is not
// linked into the binary (only tests import it).
//
// Each operation updates one row of a counter table; variant "indexed" has
// an index on the updated column (no update is HOT), "plain" has none.
package demo
