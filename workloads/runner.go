package workloads

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cenkalti/backoff/v5"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
)

// Ops gives each worker its share of a variant's operations: for worker i of
// n, a Next that returns them in the order the worker issues them.
type Ops func(worker, workers int) Next

// Next returns the worker's next operation, or false when it has none left.
type Next func() (Op, bool)

// Op is one operation of a workload: one transaction, or nothing at all.
type Op struct {
	Name   string // latency and error key, singular ("refresh")
	Counts string // operation count key, plural ("refreshes")
	// Steps run in one transaction (pipelined where the dialect can). None:
	// nothing reaches the database, and the operation still counts.
	Steps []Step
	// Done runs once the transaction committed and every step did what it
	// should: what the workload's own state becomes. The steps must not
	// change that state themselves, so a retried transaction repeats them.
	Done func()
}

// Step is one statement of an operation and what it must do.
type Step struct {
	// Name is the statement's name; the rows a DML step changes are counted
	// under it (Stats.Statements, for the effect derivation).
	Name string
	dialects.Stmt
	Want int64 // rows affected (DML) or returned (query); -1 = any
}

// Runner drives a workload's operations: Concurrency workers, each on its own
// connection, each operation a transaction retried with backoff when the
// dialect calls its error transient, latencies into histograms merged across
// workers, progress, and the dialect's EndSession as each worker's last
// statement. Cancellation stops the workers and is not counted as an error.
type Runner struct {
	Target      dialects.Target
	Concurrency int
	// NoPipeline sends statements one at a time, waiting for each.
	NoPipeline bool
	Progress   Progress
	// MaxErrors stops a worker that fails persistently instead of reporting
	// noise (default 100); Retries bounds the retries of one operation
	// (default 3).
	MaxErrors, Retries int
	// Watch, when set, is told each worker's server session id as it
	// connects (the dialect's SessionID) and the operation it runs from then
	// on ("" between operations), so the wait samplers tell the workload's
	// sessions apart and share their waits per operation.
	Watch func(session, op string)
	// Xacts asks each operation's transaction for its id (where the dialect
	// is an XactIDReader), one read-only query appended to its statements,
	// and keeps which operation each id was (Stats.Xacts).
	Xacts bool

	xactSQL string
}

// errWorkerGaveUp is why the other workers stop when one gives up.
var errWorkerGaveUp = errors.New("another worker gave up")

// MaxConcurrency bounds --concurrency: workers each hold a connection.
const MaxConcurrency = 1024

// CheckConcurrency names the flag when a level is out of range.
func CheckConcurrency(n int) error {
	if n < 1 || n > MaxConcurrency {
		return fmt.Errorf("--concurrency must be between 1 and %d (got %d)", MaxConcurrency, n)
	}
	return nil
}

// Run runs ops to the end, or until ctx is cancelled or a worker gives up;
// the stats cover what was done either way.
func (r Runner) Run(ctx context.Context, ops Ops) (Stats, error) {
	n := r.Concurrency
	if n < 1 {
		n = 1
	}
	if r.Progress == nil {
		r.Progress = NoProgress{}
	}
	if r.MaxErrors == 0 {
		r.MaxErrors = 100
	}
	if r.Retries == 0 {
		r.Retries = 3
	}
	var pipe dialects.Pipeliner
	if !r.NoPipeline {
		pipe, _ = r.Target.Dialect.(dialects.Pipeliner)
	}
	if xr, ok := r.Target.Dialect.(dialects.XactIDReader); ok && r.Xacts {
		text, err := xr.XactIDStmt(r.Target.Server)
		if err != nil {
			return Stats{}, err
		}
		r.xactSQL = text
	}
	results := make([]*tally, n)
	errs := make([]error, n)
	start := time.Now()
	// A worker that gives up ends the run: its share of the operations is
	// lost, so the result is partial whatever the others do, and letting
	// them finish only spends the user's time (a lost connection once kept
	// a 500,000-operation run going for minutes after it had failed).
	wctx, giveUp := context.WithCancelCause(ctx)
	defer giveUp(nil)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			results[i] = newTally()
			errs[i] = r.worker(wctx, pipe, ops(i, n), results[i])
			if errs[i] != nil && ctx.Err() == nil {
				giveUp(errWorkerGaveUp)
			}
		}(i)
	}
	wg.Wait()
	if ctx.Err() == nil {
		for i, e := range errs {
			if e != nil && errors.Is(e, context.Canceled) && errors.Is(context.Cause(wctx), errWorkerGaveUp) {
				errs[i] = nil // stopped because another worker gave up, not a failure of its own
			}
		}
	}
	st := Stats{Operations: map[string]int64{}, Errors: map[string]int64{}, Latency: map[string]*Histogram{},
		Statements: map[string]int64{}, Elapsed: time.Since(start)}
	if r.xactSQL != "" {
		st.Xacts = &collectors.Xacts{}
	}
	for _, t := range results {
		t.mergeInto(&st)
	}
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
	return st, runErr
}

// tally is one worker's counts, merged into Stats at the end.
type tally struct {
	ops, errs, stmts map[string]int64
	retries          int64
	lat              map[string]*Histogram
	xacts            collectors.Xacts
}

func newTally() *tally {
	return &tally{ops: map[string]int64{}, errs: map[string]int64{}, stmts: map[string]int64{}, lat: map[string]*Histogram{}}
}

func (t *tally) latency(op string) *Histogram {
	h := t.lat[op]
	if h == nil {
		h = NewHistogram()
		t.lat[op] = h
	}
	return h
}

func (t *tally) mergeInto(st *Stats) {
	for k, v := range t.ops {
		st.Operations[k] += v
	}
	for k, v := range t.errs {
		st.Errors[k] += v
	}
	for k, v := range t.stmts {
		st.Statements[k] += v
	}
	st.Retries += t.retries
	if st.Xacts != nil {
		st.Xacts.Merge(&t.xacts) // empties the worker's
	}
	for k, h := range t.lat {
		if st.Latency[k] == nil {
			st.Latency[k] = NewHistogram()
		}
		st.Latency[k].Merge(h)
	}
}

func (r Runner) worker(ctx context.Context, pipe dialects.Pipeliner, next Next, t *tally) error {
	conn, err := r.Target.DB.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	watch := r.watcher(ctx, conn)
	failures := 0
	for {
		op, ok := next()
		if !ok {
			break
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		watch(op.Name)
		t0 := time.Now()
		err := r.attempts(ctx, conn, pipe, op, t)
		watch("")
		t.latency(op.Name).Record(time.Since(t0))
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err() // cancellation at shutdown is not an error of the workload
			}
			t.errs[op.Name]++
			failures++
			if failures >= r.MaxErrors || ConnectionLost(err) {
				return fmt.Errorf("%s failed (%d errors so far): %w", op.Name, failures, err)
			}
			continue
		}
		t.ops[op.Counts]++
		if op.Done != nil {
			op.Done()
		}
		r.Progress.Add(1)
	}
	return r.Target.EndSession(ctx, conn)
}

// watcher reports conn's session to Watch and returns what tells it the
// operation it runs; without Watch, or when the dialect cannot name the
// session, it does nothing, and the samplers do not count that worker.
func (r Runner) watcher(ctx context.Context, conn *sql.Conn) func(op string) {
	if r.Watch == nil || r.Target.Dialect == nil {
		return func(string) {}
	}
	id, err := r.Target.Dialect.SessionID(ctx, conn)
	if err != nil {
		return func(string) {}
	}
	r.Watch(id, "")
	return func(op string) { r.Watch(id, op) }
}

// attempts runs op, and again after a growing, jittered pause while the
// dialect calls the failure transient (a serialization failure, a deadlock):
// the retry a client of the database would make.
func (r Runner) attempts(ctx context.Context, conn *sql.Conn, pipe dialects.Pipeliner, op Op, t *tally) error {
	if len(op.Steps) == 0 {
		return nil // nothing reaches the database (Keycloak serves it from its cache)
	}
	b := backoff.NewExponentialBackOff()
	b.InitialInterval, b.MaxInterval, b.RandomizationFactor = 2*time.Millisecond, 100*time.Millisecond, 0.5
	_, err := backoff.Retry(ctx, func() (struct{}, error) {
		err := r.once(ctx, conn, pipe, op, t)
		if err != nil && !r.Target.Retryable(err) {
			return struct{}{}, backoff.Permanent(err)
		}
		return struct{}{}, err
	}, backoff.WithBackOff(b), backoff.WithMaxTries(uint(r.Retries)+1), backoff.WithMaxElapsedTime(0),
		backoff.WithNotify(func(error, time.Duration) { t.retries++ }))
	return err
}

// once runs op's steps in one transaction and checks what each did. The
// rows of committed DML count even when a later step's count is wrong.
func (r Runner) once(ctx context.Context, conn *sql.Conn, pipe dialects.Pipeliner, op Op, t *tally) error {
	list := make([]dialects.Stmt, len(op.Steps), len(op.Steps)+1)
	for i, st := range op.Steps {
		list[i] = st.Stmt
	}
	var xid sql.NullInt64
	if r.xactSQL != "" {
		// Last, after the writes: by then the transaction has its id if it
		// will ever have one.
		list = append(list, dialects.Stmt{SQL: r.xactSQL, Query: true, Dest: []any{&xid}})
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
	for i, st := range op.Steps {
		got := res[i].RowsAffected
		if st.Query {
			got = res[i].RowsReturned
		} else {
			t.stmts[st.Name] += got
		}
		if st.Want >= 0 && got != st.Want {
			return fmt.Errorf("%s: %d rows, expected %d (was the row changed by someone else?)", st.Name, got, st.Want)
		}
	}
	if xid.Valid {
		t.xacts.Add(uint32(xid.Int64), op.Name)
	}
	return nil
}
