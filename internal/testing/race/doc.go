// Package race tells a test whether the binary runs under the race
// detector, for the tests that measure the heap: the detector's
// instrumentation allocates and its shadow memory changes what a
// measurement of the heap sees, so such a test says so and leaves its
// verdict to the run without it (make test).
package race
