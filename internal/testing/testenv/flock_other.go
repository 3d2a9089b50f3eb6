//go:build !unix

package testenv

import "testing"

// flock is a no-op where there is no flock: run one package at a time
// there (go test -p 1).
func flock(testing.TB, string) func() { return func() {} }
