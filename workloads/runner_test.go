package workloads

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/dialects"
)

// conflict stands for a driver's serialization-failure error type.
type conflict struct{}

func (conflict) Error() string { return "could not serialize access" }

type fakeDialect struct{ ended *atomic.Int32 }

func (fakeDialect) Name() string      { return "fake" }
func (fakeDialect) Schemes() []string { return nil }
func (fakeDialect) Open(context.Context, string, ...dialects.OpenOption) (*sql.DB, error) {
	return nil, nil
}
func (fakeDialect) Probe(context.Context, dialects.Querier) (dialects.Server, error) {
	return dialects.Server{}, nil
}
func (fakeDialect) Redact(s string) string                                           { return s }
func (fakeDialect) BeforeMeasure(context.Context, *sql.DB, dialects.Server) []string { return nil }
func (fakeDialect) Settle(context.Context, *sql.DB, dialects.Server, []string) []string {
	return nil
}
func (fakeDialect) SessionID(context.Context, *sql.Conn) (string, error) { return "fake", nil }
func (fakeDialect) EnterSchema(context.Context, *sql.Conn, dialects.Server, string) (func(context.Context) error, error) {
	return func(context.Context) error { return nil }, nil
}
func (fakeDialect) HowSchemaEntered() string { return "fake" }
func (fakeDialect) Retryable(err error) bool { return errors.As(err, new(conflict)) }
func (f fakeDialect) EndSession(context.Context, *sql.Conn, dialects.Server) error {
	f.ended.Add(1)
	return nil
}

type counter struct{ n atomic.Int64 }

func (c *counter) Add(n int) { c.n.Add(int64(n)) }

func mockTarget(t *testing.T) (dialects.Target, sqlmock.Sqlmock, *atomic.Int32) {
	db, mock, err := sqlmock.New(sqlmock.QueryMatcherOption(sqlmock.QueryMatcherEqual))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ended := &atomic.Int32{}
	return dialects.Target{DB: db, Dialect: fakeDialect{ended: ended}}, mock, ended
}

func ops(list ...Op) Ops {
	return func(_, _ int) Next {
		i := 0
		return func() (Op, bool) {
			if i == len(list) {
				return Op{}, false
			}
			i++
			return list[i-1], true
		}
	}
}

func update(name string) Step {
	return Step{Name: name, Stmt: dialects.Stmt{SQL: "UPDATE t SET v = v + 1 WHERE id = 1"}, Want: 1}
}

// TestRunnerRetriesWhatTheDialectCallsTransient: a transaction that fails
// with the dialect's transient error runs again (after a pause) and counts
// once; one that fails otherwise is an error of its operation, not retried;
// an operation without statements sends nothing and still counts; the
// worker's last statement is the dialect's EndSession.
func TestRunnerRetriesWhatTheDialectCallsTransient(t *testing.T) {
	target, mock, ended := mockTarget(t)
	q := "UPDATE t SET v = v + 1 WHERE id = 1"
	mock.ExpectBegin()
	mock.ExpectExec(q).WillReturnError(conflict{})
	mock.ExpectRollback()
	mock.ExpectBegin()
	mock.ExpectExec(q).WillReturnResult(sqlmock.NewResult(0, 1))
	mock.ExpectCommit()
	mock.ExpectBegin()
	mock.ExpectExec(q).WillReturnError(errors.New("duplicate key"))
	mock.ExpectRollback()
	done := 0
	var prog counter
	st, err := Runner{Target: target, Progress: &prog}.Run(context.Background(), ops(
		Op{Name: "refresh", Counts: "refreshes", Steps: []Step{update("upd")}, Done: func() { done++ }},
		Op{Name: "refresh", Counts: "refreshes", Steps: []Step{update("upd")}, Done: func() { done++ }},
		Op{Name: "refresh", Counts: "refreshes", Done: func() { done++ }},
	))
	if err != nil {
		t.Fatal(err)
	}
	if err := mock.ExpectationsWereMet(); err != nil {
		t.Fatal(err)
	}
	if st.Retries != 1 || st.Operations["refreshes"] != 2 || st.Errors["refresh"] != 1 || st.Statements["upd"] != 1 || done != 2 || prog.n.Load() != 2 {
		t.Errorf("retries %d, operations %v, errors %v, statements %v, done %d, progress %d", st.Retries, st.Operations, st.Errors, st.Statements, done, prog.n.Load())
	}
	if n := st.Latency["refresh"].Count(); n != 3 {
		t.Errorf("%d latencies recorded, want one per operation (3)", n)
	}
	if ended.Load() != 1 {
		t.Errorf("EndSession ran %d times, want once per worker", ended.Load())
	}
}

// TestRunnerStopsRetryingAfterTheBound: a transaction that stays in
// conflict is retried Retries times, then counted as one failed operation.
func TestRunnerStopsRetryingAfterTheBound(t *testing.T) {
	target, mock, _ := mockTarget(t)
	for range 3 {
		mock.ExpectBegin()
		mock.ExpectExec("UPDATE t SET v = v + 1 WHERE id = 1").WillReturnError(conflict{})
		mock.ExpectRollback()
	}
	st, err := Runner{Target: target, Retries: 2}.Run(context.Background(), ops(Op{Name: "x", Counts: "xs", Steps: []Step{update("upd")}}))
	if err != nil {
		t.Fatal(err)
	}
	if err := mock.ExpectationsWereMet(); err != nil {
		t.Fatal(err)
	}
	if st.Retries != 2 || st.Errors["x"] != 1 || st.Operations["xs"] != 0 {
		t.Errorf("retries %d, errors %v, operations %v", st.Retries, st.Errors, st.Operations)
	}
}

// TestRunnerCancellationIsNotAnError: an interrupted run returns the
// cancellation, and the operations it cut short are not counted as errors.
func TestRunnerCancellationIsNotAnError(t *testing.T) {
	target, mock, _ := mockTarget(t)
	ctx, cancel := context.WithCancel(context.Background())
	mock.ExpectBegin()
	mock.ExpectExec("UPDATE t SET v = v + 1 WHERE id = 1").WillReturnResult(sqlmock.NewResult(0, 1))
	mock.ExpectCommit()
	st, err := Runner{Target: target}.Run(ctx, ops(
		Op{Name: "x", Counts: "xs", Steps: []Step{update("upd")}, Done: cancel},
		Op{Name: "x", Counts: "xs", Steps: []Step{update("upd")}},
	))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the cancellation", err)
	}
	if st.Operations["xs"] != 1 || len(st.Errors) != 0 {
		t.Errorf("operations %v, errors %v", st.Operations, st.Errors)
	}
}

// TestRunnerMergesWorkers: every worker has its own connection and its own
// share; counts and latency histograms add up across them.
func TestRunnerMergesWorkers(t *testing.T) {
	target, mock, ended := mockTarget(t)
	mock.MatchExpectationsInOrder(false)
	const workers, each = 4, 5
	for range workers * each {
		mock.ExpectBegin()
		mock.ExpectExec("UPDATE t SET v = v + 1 WHERE id = 1").WillReturnResult(sqlmock.NewResult(0, 1))
		mock.ExpectCommit()
	}
	seen := make([]atomic.Int32, workers)
	share := func(w, n int) Next {
		if n != workers {
			t.Errorf("worker told of %d workers, want %d", n, workers)
		}
		left := each
		return func() (Op, bool) {
			if left == 0 {
				return Op{}, false
			}
			left--
			seen[w].Add(1)
			return Op{Name: "x", Counts: "xs", Steps: []Step{update("upd")}}, true
		}
	}
	st, err := Runner{Target: target, Concurrency: workers}.Run(context.Background(), share)
	if err != nil {
		t.Fatal(err)
	}
	if st.Operations["xs"] != workers*each || st.Latency["x"].Count() != workers*each || st.Statements["upd"] != workers*each {
		t.Errorf("operations %v, latencies %d, statements %v", st.Operations, st.Latency["x"].Count(), st.Statements)
	}
	for w := range seen {
		if seen[w].Load() != each {
			t.Errorf("worker %d ran %d operations, want %d", w, seen[w].Load(), each)
		}
	}
	if ended.Load() != workers {
		t.Errorf("EndSession ran %d times, want %d", ended.Load(), workers)
	}
}

// TestRunnerStopsEveryWorkerWhenOneGivesUp: a worker whose connection is
// lost ends the run; the others stop at their next operation instead of
// running their share to the end, and only the real failure is reported.
func TestRunnerStopsEveryWorkerWhenOneGivesUp(t *testing.T) {
	target, mock, _ := mockTarget(t)
	mock.ExpectBegin()
	mock.ExpectExec("UPDATE t SET v = v + 1 WHERE id = 1").WillReturnError(io.ErrUnexpectedEOF)
	mock.ExpectRollback()
	var others atomic.Int64
	share := func(w, _ int) Next {
		if w == 0 {
			return ops(Op{Name: "refresh", Counts: "refreshes", Steps: []Step{update("upd")}})(w, 2)
		}
		return func() (Op, bool) { // endless: only the run's end stops it
			others.Add(1)
			return Op{Name: "cached", Counts: "cached"}, true
		}
	}
	type ran struct {
		st  Stats
		err error
	}
	done := make(chan ran, 1)
	go func() {
		st, err := Runner{Target: target, Concurrency: 2}.Run(context.Background(), share)
		done <- ran{st, err}
	}()
	select {
	case r := <-done:
		if r.err == nil || !ConnectionLost(r.err) {
			t.Fatalf("err = %v, want the lost connection", r.err)
		}
		if strings.Contains(r.err.Error(), "more workers failed") {
			t.Errorf("the workers stopped by the failure are not failures of their own: %v", r.err)
		}
		if r.st.Errors["refresh"] != 1 {
			t.Errorf("errors %v", r.st.Errors)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the run went on after a worker gave up (%d operations by the other)", others.Load())
	}
}
