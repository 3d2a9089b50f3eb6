package collectors

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/writeamp/writeamp/result"
)

// SessionWait is one row of a server's cumulative per-session wait
// counters (SQL Server sys.dm_exec_session_wait_stats, Oracle
// V$SESSION_EVENT): ID is the server's session id (as SampleTarget.Sessions
// knows it), Session names one session's life (the id and its logon time or
// serial, since ids are reused), Event the wait, Count and Millis the totals
// since the session began or was last reset.
type SessionWait struct {
	ID, Session, Event string
	Count, Millis      float64
}

// SessionWaits polls such counters for the workload's sessions and sums,
// per event, how much they grew while the window was open: what the
// workload's own sessions waited on, without other sessions' waits that a
// server-wide view includes. The counters live only as long as the session,
// and SQL Server clears them when a pooled connection is reset, so they are
// polled (every 100 ms at least): a counter that went down was reset, and
// what it had counted is kept. A session that ends or is reset loses what
// it counted after the last poll; the figures are exact only when no
// session did.
type SessionWaits struct {
	source string
	read   func(context.Context) ([]SessionWait, error)
	ours   func(id string) bool
	stop   chan struct{}
	done   chan struct{}
	mu     sync.Mutex
	seen   map[[2]string]*sessionWait
	polls  int
	lost   map[string]bool // sessions that vanished or were reset between polls
	err    error
	every  time.Duration
}

type sessionWait struct {
	id                    string
	baseCount, baseMillis float64 // at the start (0 for a session seen later)
	lastCount, lastMillis float64
	accCount, accMillis   float64 // counted before a reset
	present               bool
}

// StartSessionWaits reads once now (the baseline), then every `every` (at
// least 100 ms) until Stop, which reads once more. ours, when set, picks the
// workload's sessions by id at Stop (a runner registers its workers after
// sampling began, so every session is followed from the start and the
// workers' are counted from their reading then).
func StartSessionWaits(ctx context.Context, every time.Duration, source string, read func(context.Context) ([]SessionWait, error), ours func(id string) bool, closeFn func()) (*SessionWaits, error) {
	if every < 100*time.Millisecond {
		every = 100 * time.Millisecond
	}
	w := &SessionWaits{source: source, read: read, ours: ours, stop: make(chan struct{}), done: make(chan struct{}),
		seen: map[[2]string]*sessionWait{}, lost: map[string]bool{}, every: every}
	rows, err := read(ctx)
	if err != nil {
		if closeFn != nil {
			closeFn()
		}
		return nil, err
	}
	for _, r := range rows {
		w.seen[[2]string{r.Session, r.Event}] = &sessionWait{id: r.ID, baseCount: r.Count, baseMillis: r.Millis, lastCount: r.Count, lastMillis: r.Millis, present: true}
	}
	w.polls = 1
	go func() {
		defer close(w.done)
		if closeFn != nil {
			defer closeFn()
		}
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-w.stop:
				w.poll(context.WithoutCancel(ctx)) // the last reading, taken after the workload
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				w.poll(ctx)
			}
		}
	}()
	return w, nil
}

func (w *SessionWaits) poll(ctx context.Context) {
	rows, err := w.read(ctx)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		w.err = err
		return
	}
	w.polls++
	now := map[[2]string]bool{}
	sessions := map[string]bool{}
	for _, r := range rows {
		k := [2]string{r.Session, r.Event}
		now[k], sessions[r.Session] = true, true
		s := w.seen[k]
		if s == nil {
			// A session (or an event) first seen now: it began inside the
			// window, from zero.
			w.seen[k] = &sessionWait{id: r.ID, lastCount: r.Count, lastMillis: r.Millis, present: true}
			continue
		}
		if r.Count < s.lastCount || r.Millis < s.lastMillis {
			// Reset (a pooled connection reused): keep what was counted.
			s.accCount += s.lastCount - s.baseCount
			s.accMillis += s.lastMillis - s.baseMillis
			s.baseCount, s.baseMillis = 0, 0
			w.lost[r.Session] = true
		}
		s.lastCount, s.lastMillis, s.present = r.Count, r.Millis, true
	}
	for k, s := range w.seen {
		if s.present && !now[k] && !sessions[k[0]] {
			w.lost[k[0]] = true // the session ended
		}
		s.present = now[k]
	}
}

// Stop reads once more and returns session_waits.<event> and
// session_waits.<event>_ms (event in lower case, spaces and punctuation
// as "_").
func (w *SessionWaits) Stop() ([]Counter, error) {
	close(w.stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil && w.polls < 2 {
		return nil, w.err
	}
	type sum struct{ n, ms float64 }
	byEvent := map[string]*sum{}
	sessions := map[string]bool{}
	lost := 0
	for k, s := range w.seen {
		if w.ours != nil && !w.ours(s.id) {
			continue
		}
		if !sessions[k[0]] && w.lost[k[0]] {
			lost++
		}
		sessions[k[0]] = true
		e := byEvent[k[1]]
		if e == nil {
			e = &sum{}
			byEvent[k[1]] = e
		}
		e.n += s.accCount + s.lastCount - s.baseCount
		e.ms += s.accMillis + s.lastMillis - s.baseMillis
	}
	ex, note := result.Exact, ""
	if lost > 0 {
		ex, note = result.Approx, fmt.Sprintf("%d of %d sessions ended or were reset between polls: what they waited after their last poll is missing", lost, len(sessions))
	}
	if w.err != nil {
		ex, note = result.Approx, joinNote(note, "polling stopped early: "+w.err.Error())
	}
	src := fmt.Sprintf("%s, growth over the window summed over %d workload sessions (polled every %s, %d polls)", w.source, len(sessions), w.every, w.polls)
	events := make([]string, 0, len(byEvent))
	for e := range byEvent {
		events = append(events, e)
	}
	sort.Strings(events)
	var out []Counter
	for _, e := range events {
		m := "session_waits." + EventSlug(e)
		out = append(out,
			Counter{Key: Key{Level: DB, Metric: m}, Value: byEvent[e].n, Exactness: ex, Source: src + ": waits of " + e, Interval: true, Note: note},
			Counter{Key: Key{Level: DB, Metric: m + "_ms"}, Value: byEvent[e].ms, Exactness: ex, Source: src + ": wait time of " + e, Interval: true, Note: note})
	}
	return out, nil
}

// EventSlug is a wait's name as a metric name: lower case, runs of other
// characters than letters and digits as one "_" ("enq: TX - index
// contention" is enq_tx_index_contention, PAGELATCH_EX pagelatch_ex).
func EventSlug(event string) string {
	var b strings.Builder
	under := false
	for _, r := range strings.ToLower(strings.TrimSpace(event)) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			under = false
			continue
		}
		if !under && b.Len() > 0 {
			b.WriteByte('_')
			under = true
		}
	}
	return strings.TrimSuffix(b.String(), "_")
}
