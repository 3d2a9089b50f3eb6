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
	return measure.NewWindow(t.Target, log)
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

// resolveDSN picks the connection string: --dsn, then WRITEAMP_DSN, then
// DATABASE_URL, then the PG* environment; "" with embedded=true when none.
func resolveDSN(flag string) (dsn, from string, embedded bool) {
	switch {
	case flag != "":
		return flag, "--dsn", false
	case os.Getenv("WRITEAMP_DSN") != "":
		return os.Getenv("WRITEAMP_DSN"), "WRITEAMP_DSN", false
	case os.Getenv("DATABASE_URL") != "":
		return os.Getenv("DATABASE_URL"), "DATABASE_URL", false
	}
	for _, v := range pgEnv {
		if os.Getenv(v) != "" {
			return "", v, false
		}
	}
	return "", "", true
}

// embedOpts say whether a command may start a throwaway PostgreSQL when no
// database is named, and from which server binaries (--pg-bin).
type embedOpts struct {
	Allow bool
	Bin   string // "" = WRITEAMP_PG_BIN, else the binaries found on this machine
}

// pgBinOf resolves --pg-bin and WRITEAMP_PG_BIN and checks the directory
// before anything connects, naming the flag or variable that is wrong.
func pgBinOf(flag string, dsnFlag string) (string, error) {
	bin, from := flag, "--pg-bin"
	if bin == "" {
		bin, from = os.Getenv(pgembed.BinEnv), pgembed.BinEnv
	}
	if bin == "" {
		return "", nil
	}
	if _, src, embedded := resolveDSN(dsnFlag); !embedded {
		if from == "--pg-bin" {
			return "", usagef("--pg-bin chooses the binaries of the throwaway PostgreSQL, but %s names a database to measure: use one or the other", src)
		}
		return "", nil // the variable only matters when a throwaway server starts
	}
	if err := pgembed.CheckBinaries(bin); err != nil {
		return "", usagef("%s: %v", from, err)
	}
	return bin, nil
}

// dialectOf is the dialect connect would use for the --dsn flag's value
// (nil when the DSN names none: connect then says why).
func dialectOf(dsnFlag string) dialects.Dialect {
	dsn, _, embedded := resolveDSN(dsnFlag)
	if embedded || dsn == "" {
		d, _ := dialects.Get("postgres")
		return d
	}
	d, _ := dialects.ForDSN(dsn)
	return d
}

// connect opens the database the flags and environment name, starting a
// throwaway PostgreSQL when allowed and nothing is named.
func connect(ctx context.Context, dsnFlag string, embed embedOpts, log io.Writer) (*target, error) {
	allowEmbedded := embed.Allow
	dsn, from, embedded := resolveDSN(dsnFlag)
	var d dialects.Dialect
	var err error
	closeFns := []func(){}
	t := &target{}
	t.Close = func() {
		for i := len(closeFns) - 1; i >= 0; i-- {
			closeFns[i]()
		}
	}
	switch {
	case embedded && !allowEmbedded:
		return nil, usagef("--dsn is required (or set WRITEAMP_DSN, DATABASE_URL or the PG* variables)")
	case embedded:
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
		d, _ = dialects.Get("postgres")
		t.Where = "a throwaway PostgreSQL"
	case dsn == "":
		d, _ = dialects.Get("postgres") // PG* environment
		t.Where = "PostgreSQL from the " + from + " environment"
	default:
		d, err = dialects.ForDSN(dsn)
		if err != nil {
			return nil, usageError{err}
		}
		t.Where = d.Redact(dsn)
	}
	db, err := d.Open(ctx, dsn)
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
