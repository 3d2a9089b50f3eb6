//go:build !race

package race

// Enabled reports that the race detector instruments this binary.
const Enabled = false
