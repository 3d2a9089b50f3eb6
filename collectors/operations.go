package collectors

import (
	"context"

	"github.com/writeamp/writeamp/dialects"
)

// OperationSplitter is an interval collector that can also split the
// window's in-scope log by the transactions of a built-in workload's
// operations (Delta.Xacts: transaction id to operation), in the same read of
// the log.
type OperationSplitter interface {
	IntervalCollector
	CollectOperations(ctx context.Context, q dialects.Querier, s dialects.Server, before, after *Snapshot, xacts *Xacts) ([]Counter, *OperationLog, error)
}

// OperationLog is the in-scope log of a window per operation: every record
// the window's log_bytes_in_scope counts is in exactly one entry, those of
// transactions the workload did not name (xid-less records such as pruning,
// retried attempts that aborted, other sessions writing the same tables)
// under Unattributed.
type OperationLog struct {
	Source string
	Ops    map[string]*OpLog
	// Unattributed is keyed "" in no map: the records of no known operation.
	Unattributed OpLog
}

// OpLog is what one operation's transactions wrote.
type OpLog struct {
	// Xacts is how many of its transactions wrote a record in the window.
	Xacts   int64
	Total   LogFigures
	Objects map[ObjectRef]*LogFigures
}

// ObjectRef names a scoped table or index ("schema.name"); the zero value is
// the records of no relation (commit records).
type ObjectRef struct {
	Level  Level
	Object string
}

// LogFigures are the sums of some records.
type LogFigures struct {
	Records, Bytes, FpiBytes, Fpis, LeafInserts float64
}

// Add sums b into f.
func (f *LogFigures) Add(b LogFigures) {
	f.Records += b.Records
	f.Bytes += b.Bytes
	f.FpiBytes += b.FpiBytes
	f.Fpis += b.Fpis
	f.LeafInserts += b.LeafInserts
}

// Add counts records of one object into the operation.
func (o *OpLog) Add(ref ObjectRef, b LogFigures) {
	o.Total.Add(b)
	if o.Objects == nil {
		o.Objects = map[ObjectRef]*LogFigures{}
	}
	f := o.Objects[ref]
	if f == nil {
		f = &LogFigures{}
		o.Objects[ref] = f
	}
	f.Add(b)
}

// Op returns the operation's entry ("" is Unattributed).
func (l *OperationLog) Op(name string) *OpLog {
	if name == "" {
		return &l.Unattributed
	}
	if l.Ops == nil {
		l.Ops = map[string]*OpLog{}
	}
	o := l.Ops[name]
	if o == nil {
		o = &OpLog{}
		l.Ops[name] = o
	}
	return o
}
