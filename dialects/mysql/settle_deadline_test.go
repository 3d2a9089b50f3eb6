package mysql

import (
	"context"
	"testing"
	"time"
)

// The purge wait leaves the after snapshot half of the caller's time: a
// 54 s measurement context gave the whole of it to a purge an open
// transaction held back, and the snapshot then failed on the deadline.
func TestSettleDeadlineLeavesHalfOfTheCallersTime(t *testing.T) {
	t.Parallel()
	now := time.Now()
	if got := settleDeadline(context.Background(), now); !got.Equal(now.Add(SettleTimeout)) {
		t.Errorf("no deadline: %v, want SettleTimeout %v", got.Sub(now), SettleTimeout)
	}
	ctx, cancel := context.WithDeadline(context.Background(), now.Add(54*time.Second))
	defer cancel()
	if got := settleDeadline(ctx, now).Sub(now); got != 27*time.Second {
		t.Errorf("54 s left: wait %v, want 27s", got)
	}
	ctx2, cancel2 := context.WithDeadline(context.Background(), now.Add(10*time.Minute))
	defer cancel2()
	if got := settleDeadline(ctx2, now).Sub(now); got != SettleTimeout {
		t.Errorf("10 min left: wait %v, want SettleTimeout", got)
	}
}
