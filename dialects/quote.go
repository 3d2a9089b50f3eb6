package dialects

import (
	"errors"
	"fmt"
)

// Quoter quotes a name as the dialect's server reads it, for the generic
// packages that build a statement around a user's name (check's in-schema
// execution, the clone's CREATE DATABASE): they reach it through the
// registry and name no dialect package.
type Quoter interface {
	QuoteIdent(name string) string
}

// LiteralQuoter quotes text as a string literal, where the dialect can do so
// without depending on a session setting (PostgreSQL with
// standard_conforming_strings, always on since 9.1).
type LiteralQuoter interface {
	QuoteLiteral(s string) string
}

// QuoterOf is a registered dialect's quoting.
func QuoterOf(name string) (Quoter, error) {
	return optional[Quoter](name, fmt.Sprintf("the %s dialect does not quote names", name))
}

// optional is a registered dialect's implementation of the optional
// interface T, or an error saying the dialect is not built in or, in
// lacks, what it cannot do.
func optional[T any](name, lacks string) (T, error) {
	var none T
	d, ok := Get(name)
	if !ok {
		return none, fmt.Errorf("the %s dialect is not built into this writeamp", name)
	}
	t, ok := d.(T)
	if !ok {
		return none, errors.New(lacks)
	}
	return t, nil
}
