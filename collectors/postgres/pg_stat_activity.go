package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/result"
)

// PgStatActivity samples what the workload's sessions wait on. PostgreSQL
// keeps no cumulative wait counters per session (pg_wait_sampling does, as
// an extension that must be preloaded); pg_stat_activity shows the wait of
// this instant, so reading it every 10 ms from a separate connection gives
// each wait's share of the sessions' active time. A read is one catalog
// query outside any transaction: it writes no WAL.
type PgStatActivity struct{}

func (PgStatActivity) Name() string                   { return "pg_stat_activity" }
func (PgStatActivity) Supports(dialects.Server) error { return nil }

type waitKey struct{ op, typ, event string }

type activitySampling struct {
	stop    chan struct{}
	done    chan struct{}
	mu      sync.Mutex
	ticks   int
	active  int
	counts  map[waitKey]int
	err     error
	every   time.Duration
	started time.Time
	ended   time.Time
}

// Start reads pg_stat_activity every t.Every (10 ms) on a connection of its
// own until Stop.
func (PgStatActivity) Start(ctx context.Context, db *sql.DB, s dialects.Server, t collectors.SampleTarget) (collectors.Sampling, error) {
	if t.Every <= 0 {
		t.Every = 10 * time.Millisecond
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	text := q("pg_stat_activity_sample", s)
	stmt, err := conn.PrepareContext(ctx, text)
	if err != nil {
		conn.Close()
		return nil, err
	}
	a := &activitySampling{stop: make(chan struct{}), done: make(chan struct{}), counts: map[waitKey]int{}, every: t.Every, started: time.Now()}
	go func() {
		defer close(a.done)
		defer conn.Close()
		defer stmt.Close()
		tick := time.NewTicker(t.Every)
		defer tick.Stop()
		for {
			select {
			case <-a.stop:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if err := a.sample(ctx, stmt, t); err != nil {
				a.mu.Lock()
				a.err = err
				a.mu.Unlock()
				return
			}
		}
	}()
	return a, nil
}

func (a *activitySampling) sample(ctx context.Context, stmt *sql.Stmt, t collectors.SampleTarget) error {
	rows, err := stmt.QueryContext(ctx, t.ApplicationName, t.Operation != nil)
	if err != nil {
		return err
	}
	defer rows.Close()
	var seen []waitKey
	for rows.Next() {
		var k waitKey
		var query string
		if err := rows.Scan(&k.typ, &k.event, &query); err != nil {
			return err
		}
		if k.typ == "" {
			k.typ, k.event = "CPU", "running"
		}
		if t.Operation != nil {
			k.op = t.Operation(query)
		}
		seen = append(seen, k)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ticks++
	a.active += len(seen)
	for _, k := range seen {
		a.counts[k]++
	}
	return nil
}

// Stop ends sampling and turns the samples into approx database figures:
// each wait's share of the sampled active time, overall and per operation,
// the average number of active sessions, and how many samples they rest on.
func (a *activitySampling) Stop() ([]collectors.Counter, error) {
	close(a.stop)
	<-a.done
	a.ended = time.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err != nil && a.ticks == 0 {
		return nil, a.err
	}
	src := fmt.Sprintf("pg_stat_activity sampled every %s: %d samples, %d session-samples active", a.every, a.ticks, a.active)
	c := func(metric string, v float64) collectors.Counter {
		return collectors.Counter{Key: collectors.Key{Level: collectors.DB, Metric: metric}, Value: v, Exactness: result.Approx, Source: src, Interval: true}
	}
	out := []collectors.Counter{c("wait_samples", float64(a.ticks))}
	if a.ticks > 0 {
		out = append(out, c("active_sessions", float64(a.active)/float64(a.ticks)))
	}
	if a.active == 0 {
		return out, nil
	}
	total := map[string]int{} // active samples per operation
	byWait := map[string]int{}
	for k, n := range a.counts {
		total[k.op] += n
		byWait[k.typ+"."+k.event] += n
	}
	names := make([]string, 0, len(byWait))
	for w := range byWait {
		names = append(names, w)
	}
	sort.Strings(names)
	for _, w := range names {
		out = append(out, c("wait_share."+w, float64(byWait[w])/float64(a.active)))
	}
	for k, n := range a.counts {
		if k.op != "" {
			out = append(out, c("op_wait_share."+k.op+"."+k.typ+"."+k.event, float64(n)/float64(total[k.op])))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Metric < out[j].Metric })
	if a.err != nil {
		for i := range out {
			out[i].Note = "sampling stopped early: " + a.err.Error()
		}
	}
	return out, nil
}
