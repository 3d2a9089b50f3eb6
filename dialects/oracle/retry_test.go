package oracle

import (
	"errors"
	"fmt"
	"testing"

	"github.com/sijms/go-ora/v2/network"
)

func TestRetryableByErrorCode(t *testing.T) {
	for code, want := range map[int]bool{60: true, 8177: true, 1: false, 942: false} {
		err := fmt.Errorf("statement 4: %w", &network.OracleError{ErrCode: code, ErrMsg: "x"})
		if got := (Dialect{}).Retryable(err); got != want {
			t.Errorf("ORA-%05d: retryable = %v, want %v", code, got, want)
		}
	}
	if (Dialect{}).Retryable(errors.New("ORA-00060: deadlock detected while waiting for resource")) {
		t.Error("the code comes from go-ora's error, not from the message text")
	}
}

func TestLockTimedOutIsORA00054(t *testing.T) {
	for code, want := range map[int]bool{54: true, 60: false, 4021: false} {
		err := fmt.Errorf("statement 1: %w", &network.OracleError{ErrCode: code, ErrMsg: "x"})
		if got := (Dialect{}).LockTimedOut(err); got != want {
			t.Errorf("ORA-%05d: lock timeout = %v, want %v", code, got, want)
		}
	}
}
