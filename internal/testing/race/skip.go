package race

import "testing"

// SkipHeapMeasure skips a test whose verdict is a measurement of the Go
// heap when the race detector runs, naming why and where it does run.
func SkipHeapMeasure(t testing.TB) {
	t.Helper()
	if Enabled {
		t.Skip("measures the heap, which the race detector's instrumentation changes; make test runs it without -race")
	}
}
