package postgres

import (
	"errors"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/writeamp/writeamp/dialects"
)

// Retryable: SQLSTATE 40001 serialization_failure and 40P01
// deadlock_detected, the two the documentation says to retry
// (https://www.postgresql.org/docs/current/mvcc-serialization-failure-handling.html).
func (Dialect) Retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}

var _ dialects.RetryClassifier = Dialect{}

// LockTimedOut: SQLSTATE 55P03 lock_not_available, which lock_timeout raises
// (https://www.postgresql.org/docs/current/errcodes-appendix.html).
func (Dialect) LockTimedOut(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "55P03"
}

var _ dialects.LockTimeoutClassifier = Dialect{}
