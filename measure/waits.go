package measure

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"

	"github.com/writeamp/writeamp/collectors"
)

// Waits starts the dialect's wait samplers (collectors.Set.Samplers) for
// every window and adds what they saw to its figures: each wait's share of
// the workload's sampled active time (wait_share.*, op_wait_share.*),
// approx, with the sample count in the source. A built-in workload's
// sessions are told apart by the server session ids its runner reports
// (Span.sessions); a wrapped command's are not known, so every other
// session of the database but writeamp's own is sampled, and the source
// says so.
type Waits struct {
	// Every is the sampling period (10 ms if zero).
	Every time.Duration

	side   map[string]*sql.DB // a sampler's own pool (collectors.SamplerDB)
	notes  map[string]string
	failed map[string]error // no pool of its own: the sampler does not run
}

// Prepare opens the pools of the samplers that must not read from the
// measured one (PostgreSQL: another database of the cluster), once until
// the window is restored, before the window opens: a connection's first
// statement must not land in the window.
func (o *Waits) Prepare(ctx context.Context, w *Window) error {
	if o.side != nil {
		return nil
	}
	o.side, o.notes, o.failed = map[string]*sql.DB{}, map[string]string{}, map[string]error{}
	w.restores = append(w.restores, func(context.Context) error {
		for _, db := range o.side {
			db.Close()
		}
		o.side, o.notes, o.failed = nil, nil, nil
		return nil
	})
	for _, sm := range w.Set.Samplers {
		sdb, ok := sm.(collectors.SamplerDB)
		if !ok || sm.Supports(w.Server) != nil {
			continue
		}
		db, note, err := sdb.OpenSampler(ctx, w.DB, w.Server)
		if err != nil {
			// Not read from the measured pool instead: that is what
			// OpenSampler exists to avoid, and only it can say when it is harmless.
			o.failed[sm.Name()] = fmt.Errorf("no connection for the wait sampler: %w", err)
			continue
		}
		if db != nil {
			o.side[sm.Name()] = db
		}
		o.notes[sm.Name()] = note
	}
	return nil
}

// Observe starts every sampler the server supports.
func (o *Waits) Observe(ctx context.Context, w *Window, sp *Span) (Observation, error) {
	t := collectors.SampleTarget{Every: o.Every}
	if sp.sessions != nil {
		t.Sessions = sp.sessions.Lookup
	}
	ob := &waitsObs{}
	for _, sm := range w.Set.Samplers {
		s := sampled{name: sm.Name(), note: o.notes[sm.Name()]}
		s.err = o.failed[sm.Name()]
		if s.err == nil {
			s.err = sm.Supports(w.Server)
		}
		if s.err == nil {
			db := w.DB
			if side := o.side[sm.Name()]; side != nil {
				db = side
			}
			s.run, s.err = sm.Start(ctx, db, w.Server, t)
		}
		ob.all = append(ob.all, &s)
	}
	if len(ob.all) == 0 {
		return nil, nil
	}
	return ob, nil
}

type sampled struct {
	name, note string
	run        collectors.Sampling
	found      []collectors.Counter
	err        error
}

type waitsObs struct {
	all  []*sampled
	once sync.Once
}

// Stop ends every sampler and keeps what it saw.
func (o *waitsObs) Stop(context.Context) error {
	o.once.Do(func() {
		for _, s := range o.all {
			if s.run == nil {
				continue
			}
			s.found, s.err = s.run.Stop()
			for i := range s.found {
				switch {
				case s.note == "":
				case s.found[i].Note == "":
					s.found[i].Note = s.note
				default:
					s.found[i].Note += "; " + s.note
				}
			}
		}
	})
	return nil
}

// AddToDelta puts the shares in the window's figures; a sampler that could
// not run is listed as missing, with why.
func (o *waitsObs) AddToDelta(d *collectors.Delta) {
	for _, s := range o.all {
		d.AddSampled(s.name, s.found, s.err)
	}
}
