package sqlserver

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	ms "github.com/writeamp/writeamp/dialects/sqlserver"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// HadrLag samples, on an availability group's primary while the window is
// open, how far each secondary of this database is behind: the log not yet
// sent and not yet redone, and the hardening lag. The server keeps these as
// queues of this instant, not as counters, so the figures are sampled
// maxima and percentiles (approx); its rates are its own averages, read
// from the last sample.
type HadrLag struct{}

// hadrLagEvery is the sampling period: the primary refreshes the view's
// secondary rows from their progress messages, about once a second.
const hadrLagEvery = 250 * time.Millisecond

func (HadrLag) Name() string { return "hadr_lag" }

// Supports is HadrShipped's on a primary, where both read the same views;
// elsewhere it samples nothing.
func (HadrLag) Supports(s dialects.Server) error {
	if !s.Has(ms.CapAGPrimary) {
		return nil
	}
	return HadrShipped{}.Supports(s)
}

// lagSeries are one secondary's samples; a NULL column adds nothing.
type lagSeries struct {
	sendQueue, redoQueue, lagMs []float64
	sendRate, redoRate          sql.NullInt64 // the last reported
}

type hadrLagSampling struct {
	poll *collectors.Poll
	// written by the poll's readings only, read once it has stopped
	series map[string]*lagSeries
	n      int
}

func (h HadrLag) Start(ctx context.Context, db *sql.DB, s dialects.Server, _ collectors.SampleTarget) (collectors.Sampling, error) {
	if !s.Has(ms.CapAGPrimary) {
		return collectors.NoSampling{}, nil
	}
	if err := h.Supports(s); err != nil {
		return nil, err
	}
	hs := &hadrLagSampling{series: map[string]*lagSeries{}}
	hs.poll = collectors.StartPoll(ctx, hadrLagEvery, func(ctx context.Context) error { return hs.sample(ctx, db, s) })
	return hs, nil
}

func (hs *hadrLagSampling) sample(ctx context.Context, db *sql.DB, s dialects.Server) error {
	rows, err := queries.Query(ctx, db, ms.Name, "hadr_lag_sample", s.VersionNum)
	if err != nil {
		return ms.AsPrivilegeError(err, s, ms.ServerScope)
	}
	defer rows.Close()
	hs.n++
	for rows.Next() {
		var name sql.NullString
		var id string
		var sendQ, sendRate, redoQ, redoRate, lag sql.NullInt64
		if err := rows.Scan(&name, &id, &sendQ, &sendRate, &redoQ, &redoRate, &lag); err != nil {
			return err
		}
		n := id
		if name.Valid {
			n = name.String
		}
		ls := hs.series[n]
		if ls == nil {
			ls = &lagSeries{}
			hs.series[n] = ls
		}
		// KB as the view reports them: binary kilobytes, the unit SQL Server means.
		if sendQ.Valid {
			ls.sendQueue = append(ls.sendQueue, float64(sendQ.Int64)*1024)
		}
		if redoQ.Valid {
			ls.redoQueue = append(ls.redoQueue, float64(redoQ.Int64)*1024)
		}
		if lag.Valid {
			ls.lagMs = append(ls.lagMs, float64(lag.Int64)*1000)
		}
		if sendRate.Valid {
			ls.sendRate = sendRate
		}
		if redoRate.Valid {
			ls.redoRate = redoRate
		}
	}
	return rows.Err()
}

func (hs *hadrLagSampling) Stop() ([]collectors.Counter, error) {
	if err := hs.poll.Stop(); err != nil {
		return nil, err
	}
	const view = "sys.dm_hadr_database_replica_states."
	var out []collectors.Counter
	emit := func(name string, v float64, source string) {
		out = append(out, collectors.Counter{Key: collectors.NewKey(collectors.DB, "", result.Family(name)), Value: v, Exactness: result.Approx, Source: source, Interval: true})
	}
	names := make([]string, 0, len(hs.series))
	for n := range hs.series {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		ls, p := hs.series[n], result.ReplicaPrefix+n+"."
		sampled := func(col string, k int) string {
			src := fmt.Sprintf("%s%s on the primary, the largest of %d samples every %s", view, col, k, hadrLagEvery)
			if k < hs.n {
				src += fmt.Sprintf(" (%d more with it NULL, unreported, left out)", hs.n-k)
			}
			return src
		}
		if len(ls.sendQueue) > 0 {
			emit(p+"log_send_queue_bytes_max", collectors.NearestRank(ls.sendQueue, 1), sampled("log_send_queue_size (KB)", len(ls.sendQueue)))
		}
		if len(ls.redoQueue) > 0 {
			emit(p+"redo_queue_bytes_max", collectors.NearestRank(ls.redoQueue, 1), sampled("redo_queue_size (KB, as the secondary last reported it)", len(ls.redoQueue)))
		}
		if len(ls.lagMs) > 0 {
			emit(p+"flush_lag_ms_p95", collectors.NearestRank(ls.lagMs, 0.95),
				fmt.Sprintf("%ssecondary_lag_seconds (whole seconds since the primary hardened the earliest log this secondary has not), p95 of %d samples every %s", view, len(ls.lagMs), hadrLagEvery))
		}
		if ls.sendRate.Valid {
			emit(p+"log_send_rate", float64(ls.sendRate.Int64)*1024, view+"log_send_rate (KB/s) in the last sample: the server's average over its last active period, not the window's")
		}
		if ls.redoRate.Valid {
			emit(p+"redo_rate", float64(ls.redoRate.Int64)*1024, view+"redo_rate (KB/s) in the last sample: the log redone since the secondary started over the time redo ran, not the window's")
		}
	}
	return out, nil
}
