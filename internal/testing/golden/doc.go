// Package golden is the one golden-file helper of the tests: a test renders
// its output and Check compares it with testdata/NAME, or rewrites the file
// when the test binary runs with -update (go test ./reports -update). Every
// package's golden tests use it, so the flag, the file layout and the diff a
// failure prints are the same everywhere.
//
// The diff is go-cmp's (github.com/google/go-cmp, also the Go team's choice
// for comparing test output): line by line, identical runs of lines elided,
// so a one-cell change in a 100-line table shows as that line.
package golden
