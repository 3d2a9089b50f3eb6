package collectors

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/writeamp/writeamp/result"
)

// SessionState is what one active workload session was doing at a sample:
// waiting on Class.Event (e.g. Lock.row_lock), or CPU.running where the
// server can say it waits on nothing. Op is the operation its statement
// belongs to ("" when not told apart).
type SessionState struct{ Op, Class, Event string }

// Shares runs a sampling loop and turns what it saw into each state's share
// of the sampled active time: wait_share.<Class>.<Event> overall,
// op_wait_share.<op>.<Class>.<Event> per operation, active_sessions (the
// mean number of active sessions) and wait_samples, all approx with the
// sample count in their source. A dialect's sampler gives it the read of one
// sample; the loop, the tally and the shares are the same for every dialect.
type Shares struct {
	// Source names the view and the rule ("information_schema.PROCESSLIST
	// and INNODB_TRX"); the sample counts are appended.
	Source string
	// Note, when set, goes on every figure (what the sampler cannot see).
	Note string

	stop   chan struct{}
	done   chan struct{}
	mu     sync.Mutex
	ticks  int
	active int
	counts map[SessionState]int
	err    error
	every  time.Duration
}

// StartShares calls read every `every` (10 ms if zero) until Stop; closeFn,
// if set, runs when the loop ends (the sampler's own connection).
func StartShares(ctx context.Context, every time.Duration, source string, read func(context.Context) ([]SessionState, error), closeFn func()) *Shares {
	if every <= 0 {
		every = 10 * time.Millisecond
	}
	s := &Shares{Source: source, stop: make(chan struct{}), done: make(chan struct{}), counts: map[SessionState]int{}, every: every}
	go func() {
		defer close(s.done)
		if closeFn != nil {
			defer closeFn()
		}
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			seen, err := read(ctx)
			s.mu.Lock()
			if err != nil {
				s.err = err
				s.mu.Unlock()
				return
			}
			s.ticks++
			s.active += len(seen)
			for _, k := range seen {
				s.counts[k]++
			}
			s.mu.Unlock()
		}
	}()
	return s
}

// Stop ends the loop and returns the shares. An error that ended sampling
// early is returned only when not one sample was taken; otherwise the
// figures carry it as their note.
func (s *Shares) Stop() ([]Counter, error) {
	close(s.stop)
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil && s.ticks == 0 {
		return nil, s.err
	}
	src := fmt.Sprintf("%s sampled every %s: %d samples, %d session-samples active", s.Source, s.every, s.ticks, s.active)
	note := s.Note
	if s.err != nil {
		note = joinNote(note, "sampling stopped early: "+s.err.Error())
	}
	c := func(metric string, v float64) Counter {
		return Counter{Key: Key{Level: DB, Metric: metric}, Value: v, Exactness: result.Approx, Source: src, Interval: true, Note: note}
	}
	out := []Counter{c("wait_samples", float64(s.ticks))}
	if s.ticks > 0 {
		out = append(out, c("active_sessions", float64(s.active)/float64(s.ticks)))
	}
	if s.active == 0 {
		return out, nil
	}
	perOp := map[string]int{}
	byState := map[string]int{}
	for k, n := range s.counts {
		perOp[k.Op] += n
		byState[k.Class+"."+k.Event] += n
	}
	for w, n := range byState {
		out = append(out, c("wait_share."+w, float64(n)/float64(s.active)))
	}
	for k, n := range s.counts {
		if k.Op != "" {
			out = append(out, c("op_wait_share."+k.Op+"."+k.Class+"."+k.Event, float64(n)/float64(perOp[k.Op])))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Metric < out[j].Metric })
	return out, nil
}
