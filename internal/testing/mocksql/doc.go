// Package mocksql sets up go-sqlmock the one way writeamp's tests use it:
// a statement matches only by its exact text (the embedded SQL is what a
// server would get, so a changed query must fail its test), and when the
// test ends every expectation must have been met (a statement the code no
// longer sends fails too) and the connection is closed.
package mocksql
