package measure

import (
	"context"
	"fmt"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/result"
)

// rowMetric is the table counter a kind of statement moves.
var rowMetric = map[string]string{"insert": "rows_inserted", "update": "rows_updated", "delete": "rows_deleted"}

// expectedRows sums the driver's row counts per table counter.
func expectedRows(writes []collectors.Write) map[collectors.Key]float64 {
	want := map[collectors.Key]float64{}
	for _, w := range writes {
		if m, ok := rowMetric[w.Kind]; ok {
			want[collectors.Key{Level: collectors.Table, Object: w.Schema + "." + w.Table, Metric: m}] += float64(w.Rows)
		}
	}
	return want
}

// short reports whether a measured (not derived) table counter is still below
// what the driver counted: its statistics have not all arrived yet.
func short(d *collectors.Delta, want map[collectors.Key]float64) bool {
	for k, n := range want {
		if m, ok := d.Values[k]; ok && m.OK() && m.Exactness == result.Exact && m.V() < n {
			return true
		}
	}
	return false
}

// awaitWrites takes "after" snapshots until the scoped table counters have
// caught up with the rows the workload's driver saw change, within the
// bound. PostgreSQL 15+ publishes before the workload returns, so the first
// reading suffices; the 13/14 collector receives the counts asynchronously.
func (w *Window) awaitWrites(ctx context.Context, sp *Span, until Until) (*collectors.Delta, error) {
	want := expectedRows(until.writes)
	deadline := time.Now().Add(until.bound)
	for {
		after, err := w.Set.Take(ctx, w.DB, w.Server, sp.Scope)
		if err != nil {
			return nil, err
		}
		d, err := collectors.Diff(sp.Before, after)
		if err != nil {
			return nil, err
		}
		if !short(d, want) || time.Now().After(deadline) || ctx.Err() != nil {
			return d, nil
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// crossCheckWrites holds each measured table counter against the driver's
// count of the same rows. Two sources that disagree make the number not
// exact: it stays, labelled approx, with both figures and the likely cause.
func crossCheckWrites(d *collectors.Delta, writes []collectors.Write) {
	for k, n := range expectedRows(writes) {
		m, ok := d.Values[k]
		if !ok || !m.OK() || m.Exactness != result.Exact || m.V() == n {
			continue
		}
		why := "the server's statistics had not all arrived when the window closed"
		if m.V() > n {
			why = "the server also counts rows of statements that were rolled back (retried transactions) or of other sessions writing the same table"
		}
		m.Exactness = result.Approx
		m.Note = joinNote(m.Note, fmt.Sprintf("the workload's driver counted %.0f rows, the server %.0f: %s", n, m.V(), why))
		d.Values[k] = m
		d.Warn(collectors.WarnDisagree, k.Object, "", fmt.Sprintf("%s %s: server counter %.0f, driver count %.0f (%s); shown as approx", k.Object, k.Metric, m.V(), n, why))
	}
}

// Quiesce takes "after" snapshots until the scoped table and index counters
// stop moving, and returns the last. A wrapped command's sessions publish
// their statistics as they end, which can land just after the command exits;
// the dialect cannot know when, so two equal readings are the evidence.
func (w *Window) Quiesce(ctx context.Context, sc collectors.Scope, timeout time.Duration) (*collectors.Snapshot, bool, error) {
	deadline := time.Now().Add(timeout)
	prev, err := w.Set.Take(ctx, w.DB, w.Server, sc)
	if err != nil {
		return nil, false, err
	}
	for {
		select {
		case <-ctx.Done():
			return prev, false, nil
		case <-time.After(200 * time.Millisecond):
		}
		next, err := w.Set.Take(ctx, w.DB, w.Server, sc)
		if err != nil {
			return nil, false, err
		}
		if sameObjectCounters(prev, next) {
			return next, true, nil
		}
		prev = next
		if time.Now().After(deadline) {
			return prev, false, nil
		}
	}
}

// sameObjectCounters compares the cumulative table and index counters;
// database-wide ones (WAL position) move with any session and never settle.
func sameObjectCounters(a, b *collectors.Snapshot) bool {
	vals := func(s *collectors.Snapshot) map[collectors.Key]float64 {
		m := map[collectors.Key]float64{}
		for _, c := range s.Counters {
			if c.Level != collectors.DB && !c.Gauge && !c.Interval {
				m[c.Key] = c.Value
			}
		}
		return m
	}
	va, vb := vals(a), vals(b)
	if len(va) != len(vb) {
		return false
	}
	for k, v := range va {
		if w, ok := vb[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
