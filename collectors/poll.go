package collectors

import (
	"context"
	"sort"
	"sync"
	"time"
)

// Poll calls a sampler's reading at once and then every period on a
// goroutine of its own, until Stop, the context's end, or the first error.
// The interval samplers (replication lag on every dialect) share it so each
// keeps only its reading and its figures.
type Poll struct {
	stop, done chan struct{}
	mu         sync.Mutex
	err        error
}

// StartPoll starts polling sample every period.
func StartPoll(ctx context.Context, every time.Duration, sample func(context.Context) error) *Poll {
	p := &Poll{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			if err := sample(ctx); err != nil {
				p.mu.Lock()
				p.err = err
				p.mu.Unlock()
				return
			}
			select {
			case <-p.stop:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return p
}

// Stop ends the polling and waits for the reading under way; what sample
// wrote may be read once it returns. The error is the reading's that ended it.
func (p *Poll) Stop() error {
	close(p.stop)
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// NearestRank is v's q-quantile by the nearest-rank rule (v is left as it
// was; 0 for no values): the sampled lag percentiles of every dialect.
func NearestRank(v []float64, q float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	i := int(q*float64(len(s))+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}
