//go:build unix

package testenv

import (
	"errors"
	"os"
	"syscall"
	"testing"
)

// flock waits for an exclusive lock on path, released by the returned
// function (or by the process's death: a killed test binary holds nothing).
func flock(t testing.TB, path string) func() {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		t.Fatalf("the lock that keeps tests of other packages out of this server's window: %v", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		t.Fatalf("the lock that keeps tests of other packages out of this server's window: %v", err)
	}
	return func() { f.Close() }
}
