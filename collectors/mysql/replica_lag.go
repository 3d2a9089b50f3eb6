package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// ReplicaLag samples a replica's Seconds_Behind_Master while the window is
// open: no counter keeps a lag, and the server computes it in whole seconds
// from the applied event's timestamp, so the figures are sampled and approx.
type ReplicaLag struct{}

// replicaLagEvery is the sampling period: the value changes once a second.
const replicaLagEvery = 100 * time.Millisecond

func (ReplicaLag) Name() string { return "replica_lag" }

func (ReplicaLag) Supports(s dialects.Server) error { return ReplicaStatus{}.Supports(s) }

type replicaLagSampling struct {
	poll *collectors.Poll
	secs []float64 // written by the poll's readings, read once it has stopped
	idle int       // samples with no lag shown (SQL thread stopped: NULL)
}

func (ReplicaLag) Start(ctx context.Context, db *sql.DB, s dialects.Server, _ collectors.SampleTarget) (collectors.Sampling, error) {
	if !s.Has(my.CapReplica) {
		return collectors.NoSampling{}, nil
	}
	stmt, err := queries.Get(my.Name, "replica_status", s.VersionNum)
	if err != nil {
		return nil, err
	}
	ls := &replicaLagSampling{}
	ls.poll = collectors.StartPoll(ctx, replicaLagEvery, func(ctx context.Context) error {
		rows, err := my.ReadShow(ctx, db, stmt)
		if err != nil {
			return err
		}
		worst, seen := 0.0, false
		for _, r := range rows {
			if v, err := strconv.ParseFloat(r.Get(my.ColBehind...), 64); err == nil {
				worst, seen = max(worst, v), true
			}
		}
		if seen {
			ls.secs = append(ls.secs, worst)
		} else {
			ls.idle++
		}
		return nil
	})
	return ls, nil
}

func (ls *replicaLagSampling) Stop() ([]collectors.Counter, error) {
	if err := ls.poll.Stop(); err != nil {
		return nil, err
	}
	if len(ls.secs) == 0 {
		return nil, fmt.Errorf("Seconds_Behind_Master was NULL in all %d samples: the replica's SQL thread is not running", ls.idle)
	}
	at := func(q float64) float64 { return collectors.NearestRank(ls.secs, q) * 1000 }
	src := fmt.Sprintf("Seconds_Behind_Master (SHOW REPLICA STATUS, whole seconds, the largest of the connections) sampled every %s, %d samples", replicaLagEvery, len(ls.secs))
	if ls.idle > 0 {
		src += fmt.Sprintf(", %d with the SQL thread stopped left out", ls.idle)
	}
	return []collectors.Counter{
		{Key: collectors.NewKey(collectors.DB, "", result.ReplicaLagMsP95), Value: at(0.95), Exactness: result.Approx, Source: src, Interval: true},
		{Key: collectors.NewKey(collectors.DB, "", result.ReplicaLagMsMax), Value: at(1), Exactness: result.Approx, Source: src, Interval: true},
	}, nil
}
