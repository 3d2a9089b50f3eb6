// Package pgmatrix runs integration tests on a throwaway server of every
// PostgreSQL major version writeamp supports (13 through 18), one after
// the other. The server binaries come from scripts/pg-versions.sh, which
// make test runs; it sets WRITEAMP_TEST_PG_BINS to "13=DIR,14=DIR,...".
// Without them a major is skipped, except under CI=true, where a missing
// major is a failure: the README's "PostgreSQL 13–18" is a test.
package pgmatrix
