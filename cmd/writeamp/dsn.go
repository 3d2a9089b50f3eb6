package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/pgembed"
)

// target is a connected, probed database (its dialect looked up once, from
// the DSN), and how to let go of it.
type target struct {
	dialects.Target
	Close func()
	Where string // redacted DSN, or "throwaway PostgreSQL"
	DSN   string // as connected to ("" for the PG* environment)
	// opts are how it was opened: its other connections to the same
	// server (check's copies) are opened alike.
	opts []dialects.OpenOption
}

// openAs reconnects to the target's database as another login (nil when
// its dialect cannot).
func (t *target) openAs() dialects.OpenAs {
	uo, ok := t.Dialect.(dialects.UserOpener)
	if !ok {
		return nil
	}
	dsn := t.DSN
	return func(ctx context.Context, user, password, database string) (*sql.DB, error) {
		return uo.OpenAs(ctx, dsn, user, password, database)
	}
}

// window is the measured window on the target.
func (t *target) window(log io.Writer) (*measure.Window, error) {
	w, err := measure.NewWindow(t.Target, log)
	if err == nil {
		w.Version = toolVersion()
	}
	return w, err
}

// measuredWindow is the window of run, measure and check: unless waits is
// false (--waits=false), the dialect's wait samplers watch each of its
// windows (snapshot and diff span two processes, and nothing runs between
// them to watch).
func (t *target) measuredWindow(log io.Writer, waits bool) (*measure.Window, error) {
	w, err := t.window(log)
	if err != nil {
		return nil, err
	}
	if waits {
		w.Observers = append(w.Observers, &measure.Waits{})
	}
	return w, nil
}

// statementsFlag is --create-pg-stat-statements of run and measure: the
// user's consent to create the extension for the run.
func statementsFlag(f *pflag.FlagSet, v *bool) {
	f.BoolVar(v, "create-pg-stat-statements", false, "PostgreSQL: create pg_stat_statements for the run where it is preloaded")
}

// waitsFlag is --waits of run and measure.
func waitsFlag(f *pflag.FlagSet, v *bool) {
	f.BoolVar(v, "waits", true, "sample what the sessions wait on (approximate; docs/waits.md)")
}

// pgEnv are the libpq variables that mean "use PostgreSQL from my environment".
var pgEnv = []string{"PGHOST", "PGHOSTADDR", "PGPORT", "PGUSER", "PGDATABASE", "PGSERVICE"}

// source is the database a command was pointed at, resolved once per
// invocation from --dsn and the environment and passed down: --dsn, then
// WRITEAMP_DSN, then DATABASE_URL, then the PG* environment (dsn ""), else
// nothing (embedded: a throwaway PostgreSQL where the command allows one).
type source struct {
	dsn string
	// from names where dsn came from: the flag, the variable, or the
	// first PG* variable set ("" when embedded).
	from string
	// dialect is the one the DSN names (PostgreSQL for the PG* environment
	// and a throwaway server; nil when the DSN names none: connect then
	// says why).
	dialect  dialects.Dialect
	embedded bool
}

// sourceOf resolves --dsn's value against the environment.
func sourceOf(flag string) source {
	var s source
	switch {
	case flag != "":
		s.dsn, s.from = flag, "--dsn"
	case os.Getenv("WRITEAMP_DSN") != "":
		s.dsn, s.from = os.Getenv("WRITEAMP_DSN"), "WRITEAMP_DSN"
	case os.Getenv("DATABASE_URL") != "":
		s.dsn, s.from = os.Getenv("DATABASE_URL"), "DATABASE_URL"
	default:
		s.embedded = true
		for _, v := range pgEnv {
			if os.Getenv(v) != "" {
				s.from, s.embedded = v, false
				break
			}
		}
	}
	if s.dsn == "" {
		s.dialect, _ = dialects.Get("postgres")
	} else {
		s.dialect, _ = dialects.ForDSN(s.dsn)
	}
	return s
}

// nodeSource is a --node's DSN, for which the environment never stands in.
func nodeSource(dsn string) source {
	d, _ := dialects.ForDSN(dsn)
	return source{dsn: dsn, from: "--node", dialect: d}
}

// embedOpts say whether a command may start a throwaway PostgreSQL when no
// database is named, and from which server binaries (--pg-bin).
type embedOpts struct {
	Allow bool
	Bin   string // "" = WRITEAMP_PG_BIN, else the binaries found on this machine
}

// pgBinOf resolves --pg-bin and WRITEAMP_PG_BIN and checks the directory
// before anything connects, naming the flag or variable that is wrong.
func pgBinOf(flag string, src source) (string, error) {
	bin, from := flag, "--pg-bin"
	if bin == "" {
		bin, from = os.Getenv(pgembed.BinEnv), pgembed.BinEnv
	}
	if bin == "" {
		return "", nil
	}
	if !src.embedded {
		if from == "--pg-bin" {
			return "", usagef("--pg-bin chooses the binaries of the throwaway PostgreSQL, but %s names a database to measure: use one or the other", src.from)
		}
		return "", nil // the variable only matters when a throwaway server starts
	}
	if err := pgembed.CheckBinaries(bin); err != nil {
		return "", usagef("%s: %v", from, err)
	}
	return bin, nil
}

// connect opens the database src names, starting a throwaway PostgreSQL
// when allowed and nothing is named; opts are how its connections are
// opened (fitProcs).
func connect(ctx context.Context, src source, embed embedOpts, log io.Writer, opts ...dialects.OpenOption) (*target, error) {
	dsn, d := src.dsn, src.dialect
	var err error
	closeFns := []func(){}
	t := &target{opts: opts}
	t.Close = func() {
		for i := len(closeFns) - 1; i >= 0; i-- {
			closeFns[i]()
		}
	}
	switch {
	case src.embedded && !embed.Allow:
		return nil, usagef("--dsn is required (or set WRITEAMP_DSN, DATABASE_URL or the PG* variables)")
	case src.embedded:
		bin := embed.Bin
		if bin == "" {
			bin = os.Getenv(pgembed.BinEnv)
		}
		srv, err := pgembed.StartBin(ctx, bin, log)
		if err != nil {
			return nil, err
		}
		closeFns = append(closeFns, func() {
			if err := srv.Stop(); err != nil {
				fmt.Fprintf(log, "warning: removing the throwaway PostgreSQL: %v\n", err)
			}
		})
		dsn = srv.DSN()
		t.Where = "a throwaway PostgreSQL"
	case dsn == "":
		t.Where = "PostgreSQL from the " + src.from + " environment"
	default:
		if d, err = dialects.ForDSN(dsn); err != nil {
			return nil, usageError{err}
		}
		t.Where = d.Redact(dsn)
	}
	db, err := d.Open(ctx, dsn, opts...)
	if err != nil {
		t.Close()
		return nil, err
	}
	t.DSN = dsn
	closeFns = append(closeFns, func() { db.Close() })
	if t.Target, err = dialects.NewTarget(ctx, d, db); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

// resolveScope checks --schema/--table against the server's catalog by its
// identifier rules; naming nothing that exists is bad input (exit 2).
func resolveScope(ctx context.Context, t *target, sc collectors.Scope) (collectors.Scope, error) {
	out, err := collectors.Resolve(ctx, t.DB, t.Server, sc)
	var se *collectors.ScopeError
	if errors.As(err, &se) {
		return sc, usageError{err}
	}
	return out, err
}
