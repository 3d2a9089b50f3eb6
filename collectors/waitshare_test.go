package collectors

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// The sampler's cost is bounded by its budget: a reading that takes 4 ms is
// taken every 480 ms (Budget 120) once the first warmSamples (at least every
// 100 ms, so a short window has samples) are in, not every 10 ms, so the
// sampler's connection is busy 0.8% of the time; a quick reading keeps the
// 10 ms period. At the fixed period a 4 ms reading kept it busy 40%.
// The 4 ms case expects about 22 readings (20 warm ones in ~2.1 s, then
// one per 480 ms); the floor is 15 because a loaded machine delays timers
// (CI at b7ac327 got 20), and without the warm phase it would be ~7.
func TestSharesStayWithinTheirBudget(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		took     time.Duration
		run      time.Duration
		min, max int // readings
		gap      time.Duration
	}{{4 * time.Millisecond, 3 * time.Second, 15, 29, 200 * time.Millisecond}, {50 * time.Microsecond, time.Second, 40, 101, 9 * time.Millisecond}} {
		var mu sync.Mutex
		var at []time.Time
		read := func(context.Context) ([]SessionState, error) {
			t0 := time.Now()
			for time.Since(t0) < tc.took { // busy, as a reading's own work is
			}
			mu.Lock()
			at = append(at, t0)
			mu.Unlock()
			return []SessionState{{Class: "CPU", Event: "running"}}, nil
		}
		s := StartShares(context.Background(), 10*time.Millisecond, "view", read, nil)
		time.Sleep(tc.run)
		cs, err := s.Stop()
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			if c.Metric == "wait_samples" && (!strings.Contains(c.Source, "busy") || !strings.Contains(c.Source, "on average")) {
				t.Errorf("the source does not state the period and the cost: %s", c.Source)
			}
		}
		mu.Lock()
		if n := len(at); n < tc.min || n > tc.max {
			t.Errorf("a %s reading: %d readings in %s, want %d-%d", tc.took, n, tc.run, tc.min, tc.max)
		}
		for i := warmSamples + 1; i < len(at); i++ {
			if g := at[i].Sub(at[i-1]); g < tc.gap {
				t.Errorf("a %s reading: reading %d came %s after the last, want >= %s", tc.took, i, g, tc.gap)
			}
		}
		mu.Unlock()
	}
}
