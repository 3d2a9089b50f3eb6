package mysql

import (
	"errors"

	driver "github.com/go-sql-driver/mysql"

	"github.com/writeamp/writeamp/dialects"
)

// Retryable: 1213 ER_LOCK_DEADLOCK (InnoDB rolled the transaction back) and
// 1205 ER_LOCK_WAIT_TIMEOUT, by the driver's error number
// (https://dev.mysql.com/doc/refman/8.0/en/innodb-deadlocks.html,
// https://mariadb.com/kb/en/mariadb-error-code-reference/).
func (Dialect) Retryable(err error) bool {
	var me *driver.MySQLError
	return errors.As(err, &me) && (me.Number == 1213 || me.Number == 1205)
}

var _ dialects.RetryClassifier = Dialect{}

// LockTimedOut: 1205 ER_LOCK_WAIT_TIMEOUT, for metadata locks
// (lock_wait_timeout) and InnoDB row locks (innodb_lock_wait_timeout) alike.
func (Dialect) LockTimedOut(err error) bool {
	var me *driver.MySQLError
	return errors.As(err, &me) && me.Number == 1205
}

var _ dialects.LockTimeoutClassifier = Dialect{}
