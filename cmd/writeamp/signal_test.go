package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// lockedBuffer is stderr for onSignals, which writes from its own goroutine
// and from a timer's.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A repeated signal (CI: SIGTERM to the group, then again) must neither
// kill writeamp nor quit it before the grace period: the cleanup runs on.
// Only when the grace is over does it quit, and a signal after it quits at
// once.
func TestRepeatedSignalsQuitOnlyAfterTheGrace(t *testing.T) {
	buf := &lockedBuffer{}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sigs := make(chan os.Signal, 4)
	quit := make(chan time.Time, 4)
	const grace = 600 * time.Millisecond
	start := time.Now()
	go onSignals(sigs, cancel, grace, func() { quit <- time.Now() }, buf)
	sigs <- syscall.SIGTERM
	<-ctx.Done()
	if !errors.Is(context.Cause(ctx), errInterrupted) {
		t.Fatalf("the first signal: cause %v, want errInterrupted", context.Cause(ctx))
	}
	sigs <- syscall.SIGTERM
	sigs <- syscall.SIGINT
	select {
	case q := <-quit:
		if d := q.Sub(start); d < grace {
			t.Fatalf("quit %s after the first signal, before the grace of %s", d, grace)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a repeated signal never quit after the grace")
	}
	out := buf.String()
	if n := strings.Count(out, "again"); n != 2 {
		t.Errorf("each repeated signal must be acknowledged (%d of 2):\n%s", n, out)
	}
	if !strings.Contains(out, grace.String()) {
		t.Errorf("the messages must state the grace period (%s):\n%s", grace, out)
	}
	if len(quit) != 0 {
		t.Errorf("quit more than once")
	}
	// Past the grace, a further signal quits at once.
	sigs <- syscall.SIGTERM
	select {
	case <-quit:
	case <-time.After(2 * time.Second):
		t.Fatal("a signal after the grace did not quit")
	}
}

// One signal alone never quits: the cleanup takes as long as it takes
// (each of its steps is bounded by its own timeout).
func TestOneSignalNeverQuits(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sigs := make(chan os.Signal, 1)
	quit := make(chan struct{}, 1)
	go onSignals(sigs, cancel, 100*time.Millisecond, func() { quit <- struct{}{} }, &lockedBuffer{})
	sigs <- syscall.SIGINT
	<-ctx.Done()
	select {
	case <-quit:
		t.Fatal("one signal quit writeamp")
	case <-time.After(400 * time.Millisecond):
	}
}

// docs/check-ci.md promises that a repeated signal ends writeamp only 30 s
// after the first: the grace the handler is given is that figure.
func TestTheGraceIsTheDocs(t *testing.T) {
	doc, err := os.ReadFile("../../docs/check-ci.md")
	if err != nil {
		t.Fatal(err)
	}
	if cleanupGrace != 30*time.Second || !strings.Contains(string(doc), "only 30 s after the first") {
		t.Errorf("cleanupGrace is %v; docs/check-ci.md must state it", cleanupGrace)
	}
}
