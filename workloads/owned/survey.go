package owned

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// Leftover is a workload schema found on the server and what it is.
type Leftover struct {
	Schema string
	State  string // one of the State* constants
	Detail string
}

// States of a Leftover.
const (
	StateInUse     = "in use"    // its lock is held: a writeamp run is using it
	StateAbandoned = "abandoned" // its lock is free: the run that made it is gone
	StateKept      = "kept"      // kept with --keep
	StateLegacy    = "unlocked"  // made by a writeamp without schema locks: cannot tell
	StateNotOurs   = "not ours"  // no writeamp marker
)

func (l Leftover) String() string { return l.Schema + " (" + l.State + ": " + l.Detail + ")" }

// CleanLeftovers drops the schemas of earlier runs of this workload that are
// gone (their lock is free), on any host and in any PID namespace; schemas in
// use, kept with --keep, of an older writeamp or without a marker are
// listed, not touched. This run's own schemas are neither.
func (o *Schemas) CleanLeftovers(ctx context.Context, t dialects.Target) (dropped, kept []string, err error) {
	found, err := Survey(ctx, t, o.Prefix, func(l Leftover) bool { return l.State == StateAbandoned })
	for _, l := range found {
		switch {
		case strings.Contains(l.Schema, o.RunID):
		case l.State == StateAbandoned:
			dropped = append(dropped, l.Schema)
		default:
			kept = append(kept, l.String())
		}
	}
	return dropped, kept, err
}

// Survey lists every schema starting with prefix, with its state, and drops
// those drop says to, only when their lock can be taken (abandoned, kept, or
// unlocked ones: never one in use, never one without a marker). A dropped
// schema's State stays what it was; its Detail says "dropped".
func Survey(ctx context.Context, t dialects.Target, prefix string, drop func(Leftover) bool) ([]Leftover, error) {
	if _, err := queries.Get(t.Server.Dialect, "owned_list_schemas", t.Server.VersionNum); err != nil {
		return nil, nil // a dialect without workloads has no schemas of them
	}
	o := &Schemas{Prefix: prefix, t: t}
	var out []Leftover
	err := o.OnConn(ctx, func(conn *sql.Conn) error {
		names, err := o.list(ctx, conn)
		if err != nil {
			return err
		}
		for _, n := range names {
			l, err := o.inspect(ctx, conn, n, drop)
			if err != nil {
				return err
			}
			out = append(out, l)
		}
		return nil
	})
	return out, err
}

// inspect reads one schema's marker and probes its lock; with drop saying
// so, drops it while holding the lock.
func (o *Schemas) inspect(ctx context.Context, conn *sql.Conn, name string, drop func(Leftover) bool) (Leftover, error) {
	o.schema = name
	l := Leftover{Schema: name}
	m, err := o.readMarker(ctx, conn)
	if err != nil {
		l.State, l.Detail = StateNotOurs, "no writeamp marker"
		return l, nil
	}
	who := fmt.Sprintf("run %s, pid %d on host %s", m.RunID, m.PID, m.Host)
	if m.Started != "" {
		who += ", started " + m.Started
	}
	if m.Legacy {
		l.State, l.Detail = StateLegacy, who+"; made by a writeamp without schema locks, so whether its run is alive cannot be told"
		if drop == nil || !drop(l) {
			return l, nil
		}
		return o.dropLeftover(ctx, conn, l)
	}
	ok, err := o.tryLock(ctx, conn, name)
	if err != nil {
		return l, fmt.Errorf("probe the lock of schema %s: %w", name, err)
	}
	if !ok {
		l.State, l.Detail = StateInUse, who
		return l, nil
	}
	defer o.unlock(context.WithoutCancel(ctx), conn, name)
	l.State, l.Detail = StateAbandoned, who+"; that run did not finish"
	if m.Kept {
		l.State, l.Detail = StateKept, who+"; kept with --keep"
	}
	if drop == nil || !drop(l) {
		return l, nil
	}
	return o.dropLeftover(ctx, conn, l)
}

func (o *Schemas) dropLeftover(ctx context.Context, conn *sql.Conn, l Leftover) (Leftover, error) {
	if _, err := conn.ExecContext(ctx, o.mustSQL("owned_drop_schema")); err != nil {
		return l, fmt.Errorf("drop leftover schema %s: %w", l.Schema, err)
	}
	l.Detail += "; dropped"
	return l, nil
}
