package collectors

import (
	"context"
	"fmt"
	"math"
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
	start  time.Time
	busy   time.Duration // spent reading
	// Per-reading sums for each wait's standard error: the sessions of
	// one reading are not independent samples (four sessions queued on
	// one row lock wait together), so a share's error follows the
	// readings, not the session-samples (see StdErr).
	sumAA float64            // Σ active²
	sumCA map[string]float64 // Σ count·active, by Class.Event
	sumCC map[string]float64 // Σ count², by Class.Event
}

// Budget bounds a sampler's cost: a reading starts at least Budget times
// its own duration after the last one began, so the sampler's connection is
// busy (client and server side alike) at most 1/Budget of the time. A fixed
// 10 ms period let a slow reading of pg_stat_activity take a large share of
// a server core and slowed the workload visibly; the shares need many
// samples, not frequent ones, and a slower reading only samples less often.
// Half this budget stays under the 2% a sampler may cost, yet still slowed
// pgbench -c 2 on a 2-core machine, where the sampler's reading and the
// client's share one core with the workload (measured with make bench,
// docs/performance.md); 120 leaves a margin.
const Budget = 120

// warmSamples are taken at least every 100 ms before the budget applies.
const warmSamples = 20

// StartShares calls read every `every` (10 ms if zero), or less often when a
// reading takes longer than every/Budget (but the first warmSamples at least
// every 100 ms), until Stop; closeFn, if set, runs
// when the loop ends (the sampler's own connection).
func StartShares(ctx context.Context, every time.Duration, source string, read func(context.Context) ([]SessionState, error), closeFn func()) *Shares {
	if every <= 0 {
		every = 10 * time.Millisecond
	}
	s := &Shares{Source: source, stop: make(chan struct{}), done: make(chan struct{}), counts: map[SessionState]int{}, every: every, start: time.Now(), sumCA: map[string]float64{}, sumCC: map[string]float64{}}
	go func() {
		defer close(s.done)
		if closeFn != nil {
			defer closeFn()
		}
		wait := time.NewTimer(every)
		defer wait.Stop()
		var typical time.Duration
		for {
			select {
			case <-s.stop:
				return
			case <-ctx.Done():
				return
			case <-wait.C:
			}
			t0 := time.Now()
			seen, err := read(ctx)
			took := time.Since(t0)
			s.mu.Lock()
			if err != nil {
				s.err = err
				s.mu.Unlock()
				return
			}
			s.ticks++
			s.busy += took
			s.active += len(seen)
			for _, k := range seen {
				s.counts[k]++
			}
			s.tallyReading(seen)
			s.mu.Unlock()
			// The period follows the readings' smoothed time, not the last
			// one's: a connection's first reading fills its caches and one
			// slow reading must not stop sampling for a second.
			switch s.ticks {
			case 1: // warming up: not a typical reading
			case 2:
				typical = took
			default:
				typical += (took - typical) / 4
			}
			period := max(every, Budget*typical)
			if s.ticks < warmSamples {
				// A short window still gets its samples: the first ones
				// come at least every 100 ms whatever they cost.
				period = min(period, 100*time.Millisecond)
			}
			wait.Reset(max(0, period-took))
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
	el := time.Since(s.start)
	period, duty := el, 0.0
	if s.ticks > 0 {
		period = el / time.Duration(s.ticks)
		duty = s.busy.Seconds() / el.Seconds()
	}
	src := fmt.Sprintf("%s sampled every %s on average (at least %s, and %dx a reading's time: the sampler's connection was busy %.1f%% of the window): %d samples, %d session-samples active",
		s.Source, period.Round(100*time.Microsecond), s.every, Budget, 100*duty, s.ticks, s.active)
	note := s.Note
	if s.err != nil {
		note = joinNote(note, "sampling stopped early: "+s.err.Error())
	}
	c := func(metric *result.Info, v float64) Counter {
		return Counter{Key: Key{Level: DB, Metric: metric.Name}, Value: v, Exactness: result.Approx, Source: src, Interval: true, Note: note}
	}
	out := []Counter{c(result.WaitSamples, float64(s.ticks))}
	if s.ticks > 0 {
		out = append(out, c(result.ActiveSessions, float64(s.active)/float64(s.ticks)))
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
		out = append(out, c(result.Family(result.WaitSharePrefix+w), float64(n)/float64(s.active)))
	}
	for k, n := range s.counts {
		if k.Op != "" {
			out = append(out, c(result.Family(result.OpWaitSharePrefix+k.Op+"."+k.Class+"."+k.Event), float64(n)/float64(perOp[k.Op])))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Metric < out[j].Metric })
	return out, nil
}

// tallyReading adds one reading to the sums StdErr needs.
func (s *Shares) tallyReading(seen []SessionState) {
	a := float64(len(seen))
	s.sumAA += a * a
	if len(seen) == 0 {
		return
	}
	per := map[string]float64{}
	for _, k := range seen {
		per[k.Class+"."+k.Event]++
	}
	for w, c := range per {
		s.sumCA[w] += c * a
		s.sumCC[w] += c * c
	}
}

// StdErr is the standard error of wait_share.<classEvent> (after Stop):
// the share is a ratio of two sums over the readings (sessions in that
// state / sessions active), and its error is the ratio estimator's
// linearised one over the readings, n/(n-1)·Σ(c−R·a)²/A². Sessions sampled
// at one instant share their waits, so treating each session-sample as
// independent would understate the error by up to the sessions' number.
func (s *Shares) StdErr(classEvent string) float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, A := float64(s.ticks), float64(s.active)
	if n < 2 || A == 0 {
		return 0
	}
	var c float64
	for k, v := range s.counts {
		if k.Class+"."+k.Event == classEvent {
			c += float64(v)
		}
	}
	r := c / A
	ss := s.sumCC[classEvent] - 2*r*s.sumCA[classEvent] + r*r*s.sumAA
	if ss < 0 { // rounding
		ss = 0
	}
	return math.Sqrt(n/(n-1)*ss) / A
}

// ReadTime is a reading's mean time so far (what the sampler's cost is
// made of; make bench prints it).
func (s *Shares) ReadTime() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ticks == 0 {
		return 0
	}
	return s.busy / time.Duration(s.ticks)
}
