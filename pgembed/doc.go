// Package pgembed runs a throwaway PostgreSQL for `writeamp run` without a
// DSN: initdb in a temporary directory, a server on a free port with its
// socket in that directory, and everything removed afterwards.
package pgembed
