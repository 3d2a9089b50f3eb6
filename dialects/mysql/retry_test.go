package mysql

import (
	"errors"
	"fmt"
	"testing"

	driver "github.com/go-sql-driver/mysql"
)

func TestRetryableByErrorNumber(t *testing.T) {
	t.Parallel()
	for n, want := range map[uint16]bool{1213: true, 1205: true, 1062: false, 1227: false} {
		err := fmt.Errorf("statement 3: %w", &driver.MySQLError{Number: n, Message: "x"})
		if got := (Dialect{}).Retryable(err); got != want {
			t.Errorf("error %d: retryable = %v, want %v", n, got, want)
		}
	}
	if (Dialect{}).Retryable(errors.New("Error 1213 (40001): Deadlock found when trying to get lock")) {
		t.Error("the number comes from the driver's error, not from the message text")
	}
}

func TestLockTimedOutIs1205(t *testing.T) {
	t.Parallel()
	for n, want := range map[uint16]bool{1205: true, 1213: false, 1062: false} {
		err := fmt.Errorf("statement 1: %w", &driver.MySQLError{Number: n, Message: "Lock wait timeout exceeded; try restarting transaction"})
		if got := (Dialect{}).LockTimedOut(err); got != want {
			t.Errorf("error %d: lock timeout = %v, want %v", n, got, want)
		}
	}
}
