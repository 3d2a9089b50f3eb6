package main

import (
	"context"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// A run's soft memory limit follows its live heap: 32 MiB while the heap
// is small, twice the heap once it holds more, so a long run's garbage
// cannot grow to GOGC=400's five times the heap and a large one never
// collects without end against a fixed limit.
func TestFollowHeapHoldsTheLimitAtTwiceTheLiveHeap(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	prev := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(prev) })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	runtime.GC()
	followHeap(ctx)
	if got := debug.SetMemoryLimit(-1); got < followFloor || got > 2*followFloor {
		t.Fatalf("a small heap's limit: %d MiB, want 32 MiB or twice a heap under 32 MiB", got>>20)
	}
	held := make([]byte, 200<<20)
	for i := range held {
		held[i] = 1
	}
	runtime.GC()
	deadline := time.Now().Add(5 * time.Second)
	for debug.SetMemoryLimit(-1) < 400<<20 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if got := debug.SetMemoryLimit(-1); got < 400<<20 || got > 500<<20 {
		t.Errorf("with 200 MiB live the limit is %d MiB, want about 400", got>>20)
	}
	runtime.KeepAlive(held)
	cancel()
}
