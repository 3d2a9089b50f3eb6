package kernelwait

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"net"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// pair is a wrapped client connection and the server side of it.
func pair(t *testing.T) (client net.Conn, server net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			t.Error(err)
		}
		accepted <- c
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	w := Wrap(c)
	if runtime.GOOS == "linux" {
		if _, ok := w.(*conn); !ok {
			t.Fatalf("Wrap(%T) = %T, not the kernel-waiting conn", c, w)
		}
		// The dialed connection is closed: the socket lives on in the copy.
		if _, err := c.Read(make([]byte, 1)); !errors.Is(err, net.ErrClosed) {
			t.Errorf("the dialed connection after Wrap: %v, want it closed", err)
		}
	}
	s := <-accepted
	t.Cleanup(func() { w.Close(); s.Close() })
	return w, s
}

func TestRequestsAndAnswersCrossIntact(t *testing.T) {
	c, s := pair(t)
	go io.Copy(s, s) // echo
	buf := make([]byte, 64)
	for i := range 1000 {
		msg := []byte(strings.Repeat("x", i%50+1))
		if _, err := c.Write(msg); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c, buf[:len(msg)]); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf[:len(msg)], msg) {
			t.Fatalf("round trip %d: got %q", i, buf[:len(msg)])
		}
	}
}

// Megabytes each way, more than the socket buffers hold: writes that find
// the buffer full wait for room, reads continue a long answer.
func TestLargeTransfersBothWays(t *testing.T) {
	c, s := pair(t)
	data := make([]byte, 32<<20)
	rand.Read(data)
	got := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(s, int64(len(data))))
		got <- b
		s.Write(data) // and back
	}()
	if n, err := c.Write(data); err != nil || n != len(data) {
		t.Fatalf("write: %d, %v", n, err)
	}
	if b := <-got; !bytes.Equal(b, data) {
		t.Fatalf("the server read %d bytes, not the %d written", len(b), len(data))
	}
	back := make([]byte, len(data))
	if _, err := io.ReadFull(c, back); err != nil || !bytes.Equal(back, data) {
		t.Fatalf("read back: %v", err)
	}
}

func TestThePeerClosingIsEOF(t *testing.T) {
	c, s := pair(t)
	s.Write([]byte("bye"))
	s.Close()
	b, err := io.ReadAll(c)
	if err != nil || string(b) != "bye" {
		t.Fatalf("ReadAll = %q, %v; want bye, nil", b, err)
	}
}

func timeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) && errors.As(err, &ne) && ne.Timeout()
}

// A deadline ends a read that waits, as on a net.Conn: pgx cancels a
// statement that way. One already past fails at once, even with data there.
func TestDeadlinesEndWaits(t *testing.T) {
	c, s := pair(t)
	c.Write([]byte("q")) // a request: the read polls first
	c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	t0 := time.Now()
	_, err := c.Read(make([]byte, 1))
	if !timeout(err) {
		t.Fatalf("read past its deadline: %v, want a timeout", err)
	}
	if d := time.Since(t0); d < 90*time.Millisecond || d > 2*time.Second {
		t.Errorf("the deadline of 100 ms ended the read after %v", d)
	}

	// Set from another goroutine while the read waits with none.
	c.SetReadDeadline(time.Time{})
	go func() {
		time.Sleep(100 * time.Millisecond)
		c.SetDeadline(time.Now())
	}()
	t0 = time.Now()
	if _, err := c.Read(make([]byte, 1)); !timeout(err) {
		t.Fatalf("read whose deadline was set while it waited: %v, want a timeout", err)
	}
	if d := time.Since(t0); d > 2*time.Second {
		t.Errorf("a deadline set while waiting ended the read after %v", d)
	}

	s.Write([]byte("a"))
	time.Sleep(50 * time.Millisecond)
	if _, err := c.Read(make([]byte, 1)); !timeout(err) {
		t.Errorf("read past its deadline with data there: %v, want a timeout", err)
	}
	c.SetDeadline(time.Time{})
	if n, err := c.Read(make([]byte, 1)); n != 1 || err != nil {
		t.Errorf("read after the deadline was cleared: %d, %v", n, err)
	}
	// Writes too.
	c.SetWriteDeadline(time.Now().Add(-time.Second))
	if _, err := c.Write([]byte("x")); !timeout(err) {
		t.Errorf("write past its deadline: %v, want a timeout", err)
	}
}

// A P per worker and one to spare while the cores allow, and only then the
// kernel wait; else a P per worker up to the cores, on the poller.
func TestPlanSparesAPForTheKernelWait(t *testing.T) {
	for _, c := range []struct {
		workers, cores int
		canWait        bool
		procs          int
		wait           bool
	}{
		{1, 2, true, 2, true}, {2, 2, true, 2, false}, {8, 2, true, 2, false}, {4, 16, true, 5, true},
		{0, 4, true, 2, true}, {1, 1, true, 1, false}, {3, 0, true, 1, false},
		// Connections that cannot wait in the kernel: a P per worker, up to the cores.
		{1, 2, false, 1, false}, {8, 2, false, 2, false}, {4, 16, false, 4, false}, {0, 4, false, 1, false},
	} {
		if procs, wait := Plan(c.workers, c.cores, c.canWait); procs != c.procs || wait != c.wait {
			t.Errorf("Plan(%d workers, %d cores, canWait %v) = %d, %v; want %d, %v", c.workers, c.cores, c.canWait, procs, wait, c.procs, c.wait)
		}
	}
}
