package collectors

import (
	"context"
	"errors"
	"math"
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

// A wait's standard error follows the readings, not the session-samples:
// three sessions caught in one lock at one reading are one observation of
// that lock, not three. Four scripted readings, worked by hand:
// counts c = 3,0,1,0 of Lock.a among a = 3,2,2,3 active, R = 4/10;
// Σ(c−R·a)² = 1.8²+0.8²+0.2²+1.2² = 5.36; √(4/3·5.36)/10 = 0.26733,
// against 0.155 (√(R(1−R)/10)) had the ten session-samples been independent.
func TestShareStdErrFollowsTheReadings(t *testing.T) {
	t.Parallel()
	lock, cpu := SessionState{Class: "Lock", Event: "a"}, SessionState{Class: "CPU", Event: "running"}
	script := [][]SessionState{{lock, lock, lock}, {cpu, cpu}, {lock, cpu}, {cpu, cpu, cpu}}
	var mu sync.Mutex
	next := 0
	read := func(context.Context) ([]SessionState, error) {
		mu.Lock()
		defer mu.Unlock()
		if next == len(script) {
			return nil, errors.New("script done")
		}
		next++
		return script[next-1], nil
	}
	s := StartShares(context.Background(), time.Millisecond, "view", read, nil)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		mu.Lock()
		done := next == len(script)
		mu.Unlock()
		if done || time.Now().After(deadline) {
			break
		}
	}
	time.Sleep(20 * time.Millisecond) // the loop records the last reading's end
	if _, err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if got, want := s.StdErr("Lock.a"), 0.26733; math.Abs(got-want) > 1e-4 {
		t.Errorf("StdErr(Lock.a) = %.5f, want %.5f", got, want)
	}
	// CPU.running is the complement: the same residuals, the same error.
	if got, want := s.StdErr("CPU.running"), 0.26733; math.Abs(got-want) > 1e-4 {
		t.Errorf("StdErr(CPU.running) = %.5f, want %.5f", got, want)
	}
	if got := s.StdErr("Lock.never"); got != 0 {
		t.Errorf("StdErr of a wait never seen = %v, want 0", got)
	}
}
