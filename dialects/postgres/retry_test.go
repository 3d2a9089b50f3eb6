package postgres

import (
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestRetryableBySQLState(t *testing.T) {
	for code, want := range map[string]bool{"40001": true, "40P01": true, "23505": false, "57014": false} {
		err := fmt.Errorf("statement 2: %w", &pgconn.PgError{Code: code, Message: "x"})
		if got := (Dialect{}).Retryable(err); got != want {
			t.Errorf("SQLSTATE %s: retryable = %v, want %v", code, got, want)
		}
	}
	// The code decides, not the words: a message that quotes 40001 is not one.
	if (Dialect{}).Retryable(errors.New("ERROR: could not serialize access (SQLSTATE 40001)")) {
		t.Error("a plain error naming 40001 in its text is not the server's serialization failure")
	}
}

func TestLockTimedOutIs55P03(t *testing.T) {
	for code, want := range map[string]bool{"55P03": true, "40P01": false, "57014": false} {
		err := fmt.Errorf("statement 1: %w", &pgconn.PgError{Code: code, Message: "canceling statement due to lock timeout"})
		if got := (Dialect{}).LockTimedOut(err); got != want {
			t.Errorf("SQLSTATE %s: lock timeout = %v, want %v", code, got, want)
		}
	}
}
