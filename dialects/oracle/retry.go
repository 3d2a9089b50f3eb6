package oracle

import (
	"errors"

	"github.com/sijms/go-ora/v2/network"

	"github.com/writeamp/writeamp/dialects"
)

// Retryable: ORA-00060 (deadlock detected while waiting for resource) and
// ORA-08177 (can't serialize access for this transaction), by go-ora's
// error code (https://docs.oracle.com/en/error-help/db/ora-00060/,
// https://docs.oracle.com/en/error-help/db/ora-08177/).
func (Dialect) Retryable(err error) bool {
	var oe *network.OracleError
	return errors.As(err, &oe) && (oe.ErrCode == 60 || oe.ErrCode == 8177)
}

var _ dialects.RetryClassifier = Dialect{}

// LockTimedOut: ORA-00054, "resource busy and acquire with NOWAIT specified
// or timeout expired", which DDL_LOCK_TIMEOUT raises
// (https://docs.oracle.com/en/error-help/db/ora-00054/).
func (Dialect) LockTimedOut(err error) bool {
	var oe *network.OracleError
	return errors.As(err, &oe) && oe.ErrCode == 54
}

var _ dialects.LockTimeoutClassifier = Dialect{}
