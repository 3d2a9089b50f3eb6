package sqlserver

import (
	"errors"

	"github.com/writeamp/writeamp/dialects"
)

// Retryable: error 1205, the deadlock victim ("Transaction (Process ID %d)
// was deadlocked ... Rerun the transaction"), by go-mssqldb's mssql.Error
// number (https://learn.microsoft.com/sql/relational-databases/errors-events/mssqlserver-1205-database-engine-error).
func (Dialect) Retryable(err error) bool {
	var n errorNumber
	return errors.As(err, &n) && n.SQLErrorNumber() == 1205
}

var _ dialects.RetryClassifier = Dialect{}

// LockTimedOut: error 1222, "Lock request time out period exceeded"
// (https://learn.microsoft.com/sql/relational-databases/errors-events/mssqlserver-1222-database-engine-error).
func (Dialect) LockTimedOut(err error) bool {
	var n errorNumber
	return errors.As(err, &n) && n.SQLErrorNumber() == 1222
}

var _ dialects.LockTimeoutClassifier = Dialect{}
