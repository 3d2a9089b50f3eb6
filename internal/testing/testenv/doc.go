// Package testenv gives integration tests their database DSNs from the
// environment. Without one a test skips, except under CI=true, where a
// missing or unreachable database is a failure: CI must never pass by
// testing nothing.
package testenv
