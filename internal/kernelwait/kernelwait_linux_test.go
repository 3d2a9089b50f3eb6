package kernelwait

import (
	"errors"
	"net"
	"os"
	"testing"
	"time"
)

// Close ends a read that waits, and closes every descriptor it holds.
func TestCloseEndsAWaitAndFreesTheDescriptors(t *testing.T) {
	before := openFDs(t)
	c, _ := pair(t)
	if n := openFDs(t); n != before+4 { // the socket, its two eventfds, the server's socket
		t.Errorf("%d descriptors open with a connection, %d before: want 4 more", n, before)
	}
	done := make(chan error)
	go func() {
		c.Write([]byte("q"))
		_, err := c.Read(make([]byte, 1))
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, net.ErrClosed) {
			t.Errorf("a read ended by Close: %v, want net.ErrClosed", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Close did not end the read waiting on the connection")
	}
	if n := openFDs(t); n != before+1 { // the server's side is still open
		t.Errorf("%d descriptors open after Close, %d before: want only the server's socket more", n, before)
	}
	if err := c.Close(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("second Close: %v, want net.ErrClosed", err)
	}
	if _, err := c.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Errorf("write after Close: %v, want net.ErrClosed", err)
	}
}

func openFDs(t *testing.T) int {
	t.Helper()
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(es)
}
