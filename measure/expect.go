package measure

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
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
// caught up with the rows the workload's driver saw change, within bound.
// PostgreSQL 15+ publishes before the workload returns, so the first reading
// suffices; the 13/14 collector receives the counts asynchronously.
func awaitWrites(ctx context.Context, set *collectors.Set, db *sql.DB, s dialects.Server, sc collectors.Scope,
	before *collectors.Snapshot, writes []collectors.Write, bound time.Duration) (*collectors.Snapshot, *collectors.Delta, error) {
	want := expectedRows(writes)
	deadline := time.Now().Add(bound)
	for {
		after, err := set.Take(ctx, db, s, sc)
		if err != nil {
			return nil, nil, err
		}
		d, err := collectors.Diff(before, after)
		if err != nil {
			return nil, nil, err
		}
		if !short(d, want) || time.Now().After(deadline) || ctx.Err() != nil {
			return after, d, nil
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
		d.Warnings = append(d.Warnings, fmt.Sprintf("%s %s: server counter %.0f, driver count %.0f (%s); shown as approx", k.Object, k.Metric, m.V(), n, why))
	}
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
