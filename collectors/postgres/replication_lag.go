package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// ReplicationLag samples, while the window is open, how far the copies are
// behind: on a primary each standby's write, flush and replay lag as its
// walsender measures them (pg_stat_replication, NULL once caught up: 0); on a
// standby the bytes received but not yet replayed and, while there are any,
// the age of the last replayed commit. No counter keeps a lag, so these are
// sampled percentiles (approx).
type ReplicationLag struct{}

// lagEvery is the sampling period: lag changes over tens of milliseconds.
const lagEvery = 100 * time.Millisecond

func (ReplicationLag) Name() string { return "replication_lag" }

func (ReplicationLag) Supports(s dialects.Server) error {
	if !s.Has(pg.CapPrimary) && !s.Has(pg.CapStandby) {
		return fmt.Errorf("%w: neither a primary nor a standby", dialects.ErrUnsupported)
	}
	return nil
}

type lagSampling struct {
	poll *collectors.Poll
	// series by metric name; a standby's keyed "" + metric. Written by the
	// poll's readings only, read once it has stopped.
	series map[string][]float64
	n      int
	start  time.Time
}

func (ReplicationLag) Start(ctx context.Context, db *sql.DB, s dialects.Server, _ collectors.SampleTarget) (collectors.Sampling, error) {
	ls := &lagSampling{series: map[string][]float64{}, start: time.Now()}
	ls.poll = collectors.StartPoll(ctx, lagEvery, func(ctx context.Context) error { return ls.sample(ctx, db, s) })
	return ls, nil
}

func (ls *lagSampling) record(name string, v float64) {
	ls.series[name] = append(ls.series[name], v)
}

func (ls *lagSampling) sample(ctx context.Context, db *sql.DB, s dialects.Server) error {
	ls.n++
	if s.Has(pg.CapStandby) {
		var age, behind float64
		if err := queries.QueryRow(ctx, db, pg.Name, "replay_lag_sample", s.VersionNum).Scan(&age, &behind); err != nil {
			return err
		}
		switch {
		case behind <= 0:
			ls.record("replay_lag_ms", 0) // caught up: replay is where the WAL received ends
		case age >= 0 && age <= time.Since(ls.start).Seconds():
			ls.record("replay_lag_ms", age*1000)
		default:
			// The last replayed commit is older than the window: its age
			// is the primary's idle time before it, not a lag.
		}
		ls.record("replay_behind_bytes", behind)
		return nil
	}
	rows, err := queries.Query(ctx, db, pg.Name, "replication_lag_sample", s.VersionNum)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var w, f, r float64
		if err := rows.Scan(&name, &w, &f, &r); err != nil {
			return err
		}
		p := result.ReplicaPrefix + name + "."
		ls.record(p+"write_lag_ms", max(w, 0)) // NULL: caught up and idle
		ls.record(p+"flush_lag_ms", max(f, 0))
		ls.record(p+"replay_lag_ms", max(r, 0))
	}
	return rows.Err()
}

func (ls *lagSampling) Stop() ([]collectors.Counter, error) {
	if err := ls.poll.Stop(); err != nil {
		return nil, err
	}
	src := fmt.Sprintf("sampled every %s, %d samples", lagEvery, ls.n)
	var out []collectors.Counter
	emit := func(name string, v float64, what string) {
		out = append(out, collectors.Counter{Key: collectors.NewKey(collectors.DB, "", result.Family(name)), Value: v, Exactness: result.Approx, Source: what + " (" + src + ")", Interval: true})
	}
	names := make([]string, 0, len(ls.series))
	for n := range ls.series {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		v := ls.series[n]
		switch {
		case n == "replay_behind_bytes":
			emit(result.ReplayBehindBytesMax.Name, collectors.NearestRank(v, 1), "pg_last_wal_receive_lsn() - pg_last_wal_replay_lsn(), the largest sample")
		case n == "replay_lag_ms":
			const what = "now() - pg_last_xact_replay_timestamp() while WAL was received and not replayed (samples whose last replayed commit predates the window left out), 0 when caught up"
			emit(result.ReplayLagMsP50.Name, collectors.NearestRank(v, 0.5), what)
			emit(result.ReplayLagMsP95.Name, collectors.NearestRank(v, 0.95), what)
			emit(result.ReplayLagMsMax.Name, collectors.NearestRank(v, 1), what)
		case len(n) > 13 && n[len(n)-13:] == "replay_lag_ms":
			const what = "pg_stat_replication.replay_lag (NULL, caught up: 0)"
			emit(n+"_p50", collectors.NearestRank(v, 0.5), what)
			emit(n+"_p95", collectors.NearestRank(v, 0.95), what)
			emit(n+"_max", collectors.NearestRank(v, 1), what)
		default:
			emit(n+"_p95", collectors.NearestRank(v, 0.95), "pg_stat_replication."+n[len(n)-12:len(n)-3]+" (NULL, caught up: 0)")
		}
	}
	return out, nil
}

// OpenSampler samples from another database of the cluster, as the wait
// sampler does: ten statements a second in the measured database would be
// counted in its pg_stat_database figures.
func (ReplicationLag) OpenSampler(ctx context.Context, db *sql.DB, s dialects.Server) (*sql.DB, string, error) {
	return PgStatActivity{}.OpenSampler(ctx, db, s)
}
