package measure

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"sync"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/result"
)

// MinInterval is the shortest --interval: the sampler's reads stay a
// negligible load (make bench states it) and the rates rest on at least a
// second of statistics, which sessions publish about once a second.
const MinInterval = time.Second

// CheckInterval refuses an --interval writeamp will not sample at.
func CheckInterval(flag string, d time.Duration) error {
	if d != 0 && d < MinInterval {
		return fmt.Errorf("%s: %s is shorter than %s: the sampler reads the server's counters once an interval, and statistics arrive about once a second (use e.g. %s 5s, or leave it out for no timeline)", flag, d, MinInterval, flag)
	}
	return nil
}

// Timeline samples the dialect's cheap whole-server counters every Every
// while the window is open (collectors.TimelineSource), from a connection
// of its own: one reading when the window opens, one each interval, one
// when the workload ends.
type Timeline struct {
	Every time.Duration
	// Keep stores the samples in the run; without it they only feed Live
	// (measure's live line on a terminal when --interval is not given).
	Keep bool
	// Live, when set, sees the samples so far after every reading; it must
	// not block, nor keep s.
	Live func(s *result.Samples)

	conn *sql.Conn // taken by Prepare for the next Observe
}

// Prepare takes the sampler's connection before the window opens.
func (t *Timeline) Prepare(ctx context.Context, w *Window) error {
	if _, ok := collectors.TimelineFor(w.Dialect.Name()); !ok {
		return nil
	}
	if t.conn != nil {
		t.conn.Close() // a window that never opened
	}
	conn, err := w.DB.Conn(ctx)
	if err != nil {
		return fmt.Errorf("timeline: no connection for the sampler: %w", err)
	}
	t.conn = conn
	return nil
}

// Observe takes the first reading on the prepared connection.
func (t *Timeline) Observe(ctx context.Context, w *Window, sp *Span) (Observation, error) {
	src, ok := collectors.TimelineFor(w.Dialect.Name())
	if !ok {
		if !t.Keep {
			return nil, nil
		}
		return nil, fmt.Errorf("timeline not sampled: writeamp has no interval sampler for %s yet (--interval has no effect here)", w.Dialect.Name())
	}
	every := t.Every
	if every < MinInterval {
		every = MinInterval
	}
	series, notes := src.Series(w.Server, sp.Before.Objects)
	conn := t.conn
	t.conn = nil
	if conn == nil {
		var err error
		if conn, err = w.DB.Conn(ctx); err != nil {
			return nil, fmt.Errorf("timeline: no connection for the sampler: %w", err)
		}
	}
	o := &timelineObs{t: t, src: src, w: w, objs: sp.Before.Objects, conn: conn,
		samples: &result.Samples{IntervalSeconds: every.Seconds(), Series: series, Notes: notes},
		stop:    make(chan struct{}), done: make(chan struct{}), start: time.Now()}
	if err := o.read(ctx, false); err != nil {
		conn.Close()
		return nil, fmt.Errorf("timeline: first reading: %w", err)
	}
	go o.loop(ctx, every)
	return o, nil
}

type timelineObs struct {
	t     *Timeline
	src   collectors.TimelineSource
	w     *Window
	objs  []collectors.Object
	conn  *sql.Conn
	start time.Time

	mu      sync.Mutex
	samples *result.Samples
	first   map[string]float64 // the first reading: values count from it
	prev    map[string]float64 // the last reading
	offset  map[string]float64 // what resets took away, added back
	resetAt map[string]float64 // when each series last fell
	failed  error

	stop, done chan struct{}
	once       sync.Once
	clock      func() time.Duration // time since start; tests set it
}

func (o *timelineObs) elapsed() time.Duration {
	if o.clock != nil {
		return o.clock()
	}
	return time.Since(o.start)
}

func (o *timelineObs) loop(ctx context.Context, every time.Duration) {
	defer close(o.done)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-o.stop:
			return
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if err := o.read(ctx, false); err != nil {
			o.fail(err)
			return
		}
	}
}

func (o *timelineObs) fail(err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.failed == nil {
		o.failed = err
		o.samples.Notes = append(o.samples.Notes, fmt.Sprintf("sampling stopped at %.1f s: %v", o.elapsed().Seconds(), err))
	}
}

// read takes one reading and turns it into a point: values counted from
// the first reading, rates per second over the interval since the last
// point. A counter that fell (a statistics reset) goes on from where it
// was, and the interval it fell in has no rate for it. The final reading
// (final) ends when the workload did: when that makes its interval shorter
// than half the period, it is joined to the interval before, so a rate
// never rests on a sliver of time (statistics a session publishes as it
// exits would otherwise look like a burst).
func (o *timelineObs) read(ctx context.Context, final bool) error {
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cur, err := o.src.Read(rctx, o.conn, o.w.Server, o.objs)
	if err != nil {
		return err
	}
	now := o.elapsed().Seconds()
	o.mu.Lock()
	defer o.mu.Unlock()
	p := result.SamplePoint{T: now, Values: map[string]float64{}}
	if o.first == nil {
		o.first, o.offset, o.resetAt, p.T = cur, map[string]float64{}, map[string]float64{}, 0
	}
	for _, s := range o.samples.Series {
		v, ok := cur[s.Name]
		if !ok {
			continue
		}
		if last, ok := o.prev[s.Name]; ok && v < last {
			o.offset[s.Name] += last - v
			o.resetAt[s.Name] = now
			o.samples.Notes = append(o.samples.Notes, fmt.Sprintf("%s fell before the reading at %.1f s (statistics reset): that interval has no rate for it", s.Name, now))
		}
		p.Values[s.Name] = v - o.first[s.Name] + o.offset[s.Name]
	}
	o.prev = cur
	pts := o.samples.Points
	if n := len(pts); n > 0 {
		if final && n >= 2 && now-pts[n-1].T < o.samples.IntervalSeconds/2 {
			pts = pts[:n-1]
		}
		base := pts[len(pts)-1]
		p.Rates = map[string]float64{}
		for name, v := range p.Values {
			if bv, ok := base.Values[name]; ok && o.resetAt[name] <= base.T && now > base.T {
				p.Rates[name] = (v - bv) / (now - base.T)
			}
		}
	}
	o.samples.Points = append(pts, p)
	if o.t.Live != nil {
		o.t.Live(o.samples)
	}
	return nil
}

// Stop ends the loop, takes the last reading (so the timeline covers the
// whole workload) and closes the sampler's session.
func (o *timelineObs) Stop(ctx context.Context) error {
	o.once.Do(func() {
		close(o.stop)
		<-o.done
		o.mu.Lock()
		failed := o.failed
		o.mu.Unlock()
		if failed == nil && ctx.Err() == nil {
			if rerr := o.read(ctx, true); rerr != nil {
				o.fail(rerr)
			}
		}
		// The session ends here rather than going back to the pool: it
		// publishes its statistics as it exits, which on PostgreSQL 15+
		// would otherwise take pg_stat_force_next_flush(), a statement, and
		// so a commit counted in the window.
		o.conn.Raw(func(any) error { return driver.ErrBadConn })
		o.conn.Close()
	})
	return nil
}

// AddToRun stores the samples in the run (with --interval).
func (o *timelineObs) AddToRun(r *result.Run) {
	if !o.t.Keep {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	r.Samples = o.samples
}
