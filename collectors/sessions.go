package collectors

import (
	"context"
	"database/sql"
	"sync"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/result"
)

// Sessions is the built-in workload's sessions as its runner reports them:
// each worker's server session id and the operation it runs now. The wait
// samplers read it (SampleTarget.Sessions) while the workers write it.
type Sessions struct {
	mu sync.RWMutex
	op map[string]string
}

// NewSessions is an empty table.
func NewSessions() *Sessions { return &Sessions{op: map[string]string{}} }

// Set says session id is the workload's and runs op now ("" between
// operations).
func (s *Sessions) Set(id, op string) {
	s.mu.Lock()
	s.op[id] = op
	s.mu.Unlock()
}

// Lookup is SampleTarget.Sessions: the operation session id runs, and
// whether it is the workload's at all.
func (s *Sessions) Lookup(id string) (op string, ours bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	op, ours = s.op[id]
	return op, ours
}

// A SamplerDB is a Sampler that must not read from the measured database's
// own connections: OpenSampler gives the pool its Start reads from and a note
// for the result ("" when there is nothing to say). The caller closes it.
// PostgreSQL's sampler connects to another database of the cluster, where
// its statements' snapshots cannot hold back the measured database's xmin
// horizon (and so HOT pruning of the workload's pages).
type SamplerDB interface {
	OpenSampler(ctx context.Context, db *sql.DB, s dialects.Server) (*sql.DB, string, error)
}

// AddSampled puts what a sampler saw into the window's figures; a sampler
// that saw nothing is missing, with why.
func (d *Delta) AddSampled(name string, cs []Counter, err error) {
	if err != nil {
		d.Missing = append(d.Missing, missingFrom(name, err))
		return
	}
	for _, c := range cs {
		d.Values[c.Key] = result.Metric{Value: ptr(c.Value), Exactness: c.Exactness, Source: c.Source, Note: c.Note}
	}
}
