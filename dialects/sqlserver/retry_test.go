package sqlserver

import (
	"errors"
	"fmt"
	"testing"

	mssql "github.com/microsoft/go-mssqldb"
)

func TestRetryableByErrorNumber(t *testing.T) {
	// go-mssqldb returns mssql.Error by value.
	for n, want := range map[int32]bool{1205: true, 2627: false, 229: false} {
		err := fmt.Errorf("statement 1: %w", mssql.Error{Number: n, Message: "x"})
		if got := (Dialect{}).Retryable(err); got != want {
			t.Errorf("error %d: retryable = %v, want %v", n, got, want)
		}
	}
	if (Dialect{}).Retryable(errors.New("mssql: Transaction (Process ID 52) was deadlocked (1205)")) {
		t.Error("the number comes from the driver's error, not from the message text")
	}
}

func TestLockTimedOutIsError1222(t *testing.T) {
	for n, want := range map[int32]bool{1222: true, 1205: false, 8645: false} {
		err := fmt.Errorf("statement 1: %w", mssql.Error{Number: n, Message: "Lock request time out period exceeded."})
		if got := (Dialect{}).LockTimedOut(err); got != want {
			t.Errorf("error %d: lock timeout = %v, want %v", n, got, want)
		}
	}
}
