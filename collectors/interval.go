package collectors

import (
	"context"
	"database/sql"
	"errors"

	"github.com/writeamp/writeamp/result"
)

// LogLostError is an interval collector's failure because the log of the
// window is no longer on the server: the report warns, not just lists it.
type LogLostError struct {
	Err error
	Why string
}

func (e *LogLostError) Error() string { return e.Why }
func (e *LogLostError) Unwrap() error { return e.Err }

type poolKey struct{}

// WithPool gives the interval collectors run under ctx the measurement's pool.
func WithPool(ctx context.Context, db *sql.DB) context.Context {
	return context.WithValue(ctx, poolKey{}, db)
}

// Pool is the measurement's connection pool, in the context RunInterval
// gives its collectors: one that reads faster on more than one connection
// (PostgreSQL's WAL decoder over pg_read_binary_file) takes another from it,
// outside the window's transaction. Nil outside RunInterval.
func Pool(ctx context.Context) *sql.DB {
	db, _ := ctx.Value(poolKey{}).(*sql.DB)
	return db
}

// RunInterval runs the interval collectors over the window and derivers
// over the result. Failures become Missing entries.
func (set *Set) RunInterval(ctx context.Context, db *sql.DB, d *Delta) {
	ctx = WithPool(ctx, db)
	for _, ic := range set.Interval {
		if err := ic.Supports(d.Server); err != nil {
			d.Missing = append(d.Missing, missingFrom(ic.Name(), err))
			continue
		}
		cs, err := func() ([]Counter, error) {
			tx, err := set.begin(ctx, db, d.Server)
			if err != nil {
				return nil, err
			}
			defer tx.Rollback()
			if sp, ok := ic.(OperationSplitter); ok && d.Xacts != nil {
				cs, ops, err := sp.CollectOperations(ctx, tx, d.Server, d.Before, d.After, d.Xacts)
				if err == nil {
					d.Operations = ops
				}
				return cs, err
			}
			return ic.CollectInterval(ctx, tx, d.Server, d.Before, d.After)
		}()
		if err != nil {
			d.Missing = append(d.Missing, missingFrom(ic.Name(), err))
			var lost *LogLostError
			if errors.As(err, &lost) {
				d.Warn(WarnLogLost, "", "", lost.Why)
			}
			continue
		}
		for _, c := range cs {
			if c.Exactness == result.Unavailable {
				// An interval collector's "cannot say" carries no value.
				d.Values[c.Key] = result.NA(c.Source, c.Note)
				continue
			}
			d.Values[c.Key] = result.Metric{Value: ptr(c.Value), Exactness: c.Exactness, Source: c.Source, Note: c.Note}
		}
	}
	for _, der := range set.Derive {
		der(d)
	}
}

// MarksOnly is an interval collector that reads nothing but the two
// snapshots' marks (a replica's binlog positions), so a diff runs it without
// a connection to the server.
type MarksOnly interface {
	IntervalCollector
	MarksOnly()
}

// RunMarksOnly runs, without a connection, the interval collectors that
// need none, and reports which ran.
func (set *Set) RunMarksOnly(ctx context.Context, d *Delta) map[string]bool {
	ran := map[string]bool{}
	for _, ic := range set.Interval {
		mo, ok := ic.(MarksOnly)
		if !ok || mo.Supports(d.Server) != nil {
			continue
		}
		ran[ic.Name()] = true
		cs, err := mo.CollectInterval(ctx, nil, d.Server, d.Before, d.After)
		if err != nil {
			d.Missing = append(d.Missing, missingFrom(ic.Name(), err))
			continue
		}
		for _, c := range cs {
			if c.Exactness == result.Unavailable {
				d.Values[c.Key] = result.NA(c.Source, c.Note)
				continue
			}
			d.Values[c.Key] = result.Metric{Value: ptr(c.Value), Exactness: c.Exactness, Source: c.Source, Note: c.Note}
		}
	}
	return ran
}
