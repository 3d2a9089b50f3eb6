package dialects

import (
	"context"
	"database/sql"
	"fmt"
)

// Target is a connected, probed database: the handle, its dialect (looked up
// once, from the DSN) and what the probe found. Everything below the
// commands is handed a Target instead of looking the dialect up again by the
// server's name, the way a collector of postgres_exporter is handed its
// instance.
type Target struct {
	DB      *sql.DB
	Dialect Dialect
	Server  Server
}

// NewTarget probes db with d.
func NewTarget(ctx context.Context, d Dialect, db *sql.DB) (Target, error) {
	s, err := d.Probe(ctx, db)
	if err != nil {
		return Target{}, err
	}
	return Target{DB: db, Dialect: d, Server: s}, nil
}

// EndSession publishes what conn did to the server's statistics where the
// dialect holds them back until the session says so (PostgreSQL 15+): the
// last statement of every connection a workload or a migration used, so its
// counts land before the window closes and not in the next one.
func (t Target) EndSession(ctx context.Context, conn *sql.Conn) error {
	e, ok := t.Dialect.(SessionEnder)
	if !ok {
		return nil
	}
	if err := e.EndSession(ctx, conn, t.Server); err != nil {
		return fmt.Errorf("publish session statistics: %w", err)
	}
	return nil
}

// Retryable reports whether err is a transient conflict (a serialization
// failure, a deadlock, a lock wait that timed out) by the dialect's own
// reading of its driver's error codes; false when the dialect cannot tell.
func (t Target) Retryable(err error) bool {
	c, ok := t.Dialect.(RetryClassifier)
	return ok && err != nil && c.Retryable(err)
}

// RetryClassifier is implemented by dialects that can tell, from their
// driver's error type and the server's error code (never the message text),
// whether a failed transaction is worth running again as it was.
type RetryClassifier interface {
	Retryable(err error) bool
}

// LockTimeoutClassifier tells a statement that gave up waiting for a lock
// (lock_timeout, lock_wait_timeout, LOCK_TIMEOUT, DDL_LOCK_TIMEOUT) by the
// server's error code.
type LockTimeoutClassifier interface {
	LockTimedOut(err error) bool
}

// IsLockTimeout reports err as a lock wait that timed out, by the dialect's
// classifier (false for a dialect without one).
func IsLockTimeout(dialect string, err error) bool {
	d, ok := Get(dialect)
	if !ok {
		return false
	}
	c, ok := d.(LockTimeoutClassifier)
	return ok && err != nil && c.LockTimedOut(err)
}
