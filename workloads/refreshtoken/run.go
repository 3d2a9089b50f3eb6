package refreshtoken

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/workloads"
)

// Run drives the plan with Concurrency workers, each on its own connection
// with its own share of the sessions in simulated-time order.
func (w *Workload) Run(ctx context.Context, db *sql.DB, s dialects.Server, p workloads.Progress) (workloads.Stats, error) {
	if p == nil {
		p = workloads.NoProgress{}
	}
	plan := w.ensurePlan()
	n := w.P.Concurrency
	var ender dialects.SessionEnder
	var pipe dialects.Pipeliner
	if d, ok := dialects.Get(s.Dialect); ok {
		ender, _ = d.(dialects.SessionEnder)
		if !w.NoPipeline {
			pipe, _ = d.(dialects.Pipeliner)
		}
	}
	stmts, err := w.prepareTexts()
	if err != nil {
		return workloads.Stats{}, err
	}
	results := make([]*workerStats, n)
	errs := make([]error, n)
	start := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			results[i], errs[i] = w.worker(ctx, db, s, ender, pipe, stmts, plan.cursor(i, n), p)
		}(i)
	}
	wg.Wait()
	var runErr error
	failed := 0
	for _, e := range errs {
		if e != nil {
			if runErr == nil {
				runErr = e
			}
			failed++
		}
	}
	if failed > 1 {
		runErr = fmt.Errorf("%w (and %d more workers failed)", runErr, failed-1)
	}
	st := workloads.Stats{Operations: map[string]int64{}, Errors: map[string]int64{}, Latency: map[string]*workloads.Histogram{}, Statements: map[string]int64{}, Elapsed: time.Since(start)}
	for _, r := range results {
		if r != nil {
			r.mergeInto(&st)
		}
	}
	return st, runErr
}

type workerStats struct {
	ops, errs, stmts map[string]int64
	retries          int64
	lat              map[string]*workloads.Histogram
}

func (r *workerStats) mergeInto(st *workloads.Stats) {
	for k, v := range r.ops {
		st.Operations[k] += v
	}
	for k, v := range r.errs {
		st.Errors[k] += v
	}
	for k, v := range r.stmts {
		st.Statements[k] += v
	}
	st.Retries += r.retries
	for k, h := range r.lat {
		if st.Latency[k] == nil {
			st.Latency[k] = workloads.NewHistogram()
		}
		st.Latency[k].Merge(h)
	}
}

// maxErrors stops a run that fails persistently instead of reporting noise.
const maxErrors = 100

func (w *Workload) worker(ctx context.Context, db *sql.DB, s dialects.Server, ender dialects.SessionEnder, pipe dialects.Pipeliner, t texts, c *cursor, p workloads.Progress) (*workerStats, error) {
	r := &workerStats{ops: map[string]int64{}, errs: map[string]int64{}, stmts: map[string]int64{}, lat: map[string]*workloads.Histogram{}}
	for _, k := range []string{"login", "refresh", "logout"} {
		r.lat[k] = workloads.NewHistogram()
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return r, err
	}
	defer conn.Close()
	gran := Granularity(int64(w.P.MaxIdle / time.Second))
	total := 0
	for {
		ev, ok := c.next()
		if !ok {
			break
		}
		if ctx.Err() != nil {
			return r, ctx.Err()
		}
		op := ev.kind.String()
		t0 := time.Now()
		var err error
		for attempt := 0; ; attempt++ {
			err = w.do(ctx, conn, pipe, t, ev, gran, r.stmts)
			if err == nil || attempt == 3 || !workloads.Retryable(err) {
				break
			}
			r.retries++
		}
		r.lat[op].Record(time.Since(t0))
		if err != nil {
			if ctx.Err() != nil {
				return r, ctx.Err() // cancellation at shutdown is not an error of the workload
			}
			r.errs[op]++
			total++
			if total >= maxErrors || workloads.ConnectionLost(err) {
				return r, fmt.Errorf("%s failed (%d errors so far): %w", op, total, err)
			}
			continue
		}
		r.ops[ev.kind.plural()]++
		p.Add(1)
	}
	if ender != nil {
		if err := ender.EndSession(ctx, conn, s); err != nil {
			return r, fmt.Errorf("publish session statistics: %w", err)
		}
	}
	return r, nil
}

// do runs one operation in one transaction, pipelined where the dialect can.
func (w *Workload) do(ctx context.Context, conn *sql.Conn, pipe dialects.Pipeliner, t texts, ev event, gran int64, stmts map[string]int64) error {
	steps, apply := w.steps(t, ev, gran)
	if len(steps) == 0 {
		// Served from Keycloak's session cache: nothing reaches the database.
		return nil
	}
	list := make([]dialects.Stmt, len(steps))
	for i, st := range steps {
		list[i] = st.stmt
	}
	var res []dialects.StmtResult
	var err error
	if pipe != nil {
		res, err = pipe.Pipeline(ctx, conn, list)
	} else {
		res, err = dialects.ExecTx(ctx, conn, list)
	}
	if err != nil {
		return err
	}
	for i, st := range steps {
		got := res[i].RowsAffected
		if st.stmt.Query {
			got = res[i].RowsReturned
		} else {
			stmts[st.name] += got
		}
		if st.want >= 0 && got != st.want {
			return fmt.Errorf("%s: %d rows, expected %d (was the session changed by someone else?)", st.name, got, st.want)
		}
	}
	apply()
	return nil
}
