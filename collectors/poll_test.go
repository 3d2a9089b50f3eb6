package collectors

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestPollSamplesUntilStopAndKeepsTheError(t *testing.T) {
	t.Parallel()
	n := 0
	p := StartPoll(context.Background(), time.Millisecond, func(context.Context) error { n++; return nil })
	time.Sleep(20 * time.Millisecond)
	if err := p.Stop(); err != nil || n < 2 {
		t.Fatalf("%d readings, error %v: want several and none", n, err)
	}
	boom := errors.New("boom")
	calls := 0
	p = StartPoll(context.Background(), time.Millisecond, func(context.Context) error { calls++; return boom })
	time.Sleep(10 * time.Millisecond)
	if err := p.Stop(); !errors.Is(err, boom) || calls != 1 {
		t.Fatalf("error %v after %d readings: want boom after the first", err, calls)
	}
}

func TestNearestRank(t *testing.T) {
	t.Parallel()
	v := []float64{5, 1, 4, 2, 3}
	for _, c := range []struct{ q, want float64 }{{0.95, 5}, {1, 5}, {0.5, 3}, {0.2, 1}} {
		if got := NearestRank(v, c.q); got != c.want {
			t.Errorf("q %v: %v, want %v", c.q, got, c.want)
		}
	}
	if v[0] != 5 || NearestRank(nil, 0.5) != 0 {
		t.Error("the input was sorted in place, or no values did not give 0")
	}
}
