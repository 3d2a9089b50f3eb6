package dialects

import "fmt"

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
	d, ok := Get(name)
	if !ok {
		return nil, fmt.Errorf("the %s dialect is not built into this writeamp", name)
	}
	q, ok := d.(Quoter)
	if !ok {
		return nil, fmt.Errorf("the %s dialect does not quote names", name)
	}
	return q, nil
}
