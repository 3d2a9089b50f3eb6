package main

import (
	"context"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/writeamp/writeamp/internal/testing/race"
)

// A run's soft memory limit follows its live heap: 32 MiB while the heap
// is small, the heap and half again (16 MiB at least) once it holds more,
// so a long run's garbage cannot grow to GOGC=400's five times the heap
// and a large one never collects without end against a fixed limit.
func TestFollowHeapHoldsTheLimitAboveTheLiveHeap(t *testing.T) {
	race.SkipHeapMeasure(t)
	t.Setenv("GOMEMLIMIT", "")
	prev := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(prev) })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	runtime.GC()
	followHeap(ctx)
	if got := debug.SetMemoryLimit(-1); got < followFloor || got > followFloor+followHeadroom {
		t.Fatalf("a small heap's limit: %d MiB, want 32 MiB or a heap under 32 MiB and 16 MiB", got>>20)
	}
	held := make([]byte, 200<<20)
	for i := range held {
		held[i] = 1
	}
	runtime.GC()
	deadline := time.Now().Add(5 * time.Second)
	for debug.SetMemoryLimit(-1) < 300<<20 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if got := debug.SetMemoryLimit(-1); got < 300<<20 || got > 360<<20 {
		t.Errorf("with 200 MiB live the limit is %d MiB, want about 300", got>>20)
	}
	runtime.KeepAlive(held)
	cancel()
}

func TestFollowLimitLeavesHalfTheHeapAndSixteenMiB(t *testing.T) {
	for live, want := range map[int64]int64{0: 32 << 20, 10 << 20: 32 << 20, 20 << 20: 36 << 20, 32 << 20: 48 << 20, 100 << 20: 150 << 20} {
		if got := followLimit(live); got != want {
			t.Errorf("followLimit(%d MiB) = %d MiB, want %d", live>>20, got>>20, want>>20)
		}
	}
}
