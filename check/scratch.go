package check

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/writeamp/writeamp/check/restore"
	"github.com/writeamp/writeamp/measure"
)

// DefaultCopyMaxSize is --copy-max-size: the largest database check copies
// without being told it may (each copy costs its size in disk and its
// copy time).
const DefaultCopyMaxSize = 2 << 30

// ScratchServer is a server of writeamp's own loaded from the database
// (internal/scratch): its copies are made there, and Stop removes it all.
type ScratchServer interface {
	NewCopy(ctx context.Context, tag string) (name, dsn string, err error)
	DropCopy(ctx context.Context, name string) error
	Env(name string) []string
	Method() string
	Loaded() time.Duration
	Disk() int64
	Stop() error
}

// Copy is how -- COMMAND is measured unless --in-place says otherwise: on
// copies of the database, so that nothing is applied to it. On its own
// server when it can be copied there (Template: PostgreSQL's CREATE
// DATABASE … TEMPLATE, which needs nobody connected to it), else on a
// scratch server loaded from a dump of it.
type Copy struct {
	Argv   []string
	Output io.Writer
	// MaxSize is --copy-max-size: a larger database is refused before
	// anything is copied.
	MaxSize int64
	// Template copies on the same server (nil where the dialect has none).
	Template *Cloner
	// Size reads the database's size when Template is nil.
	Size func(ctx context.Context) (int64, error)
	// Scratch starts a scratch server loaded from the database.
	Scratch func(ctx context.Context) (ScratchServer, error)
	// OpenCopy opens a window on a scratch copy's DSN; OpenOriginal one
	// on the database itself, for the proof that it was not changed.
	OpenCopy     func(ctx context.Context, dsn string) (*measure.Window, func(), error)
	OpenOriginal func(ctx context.Context) (*measure.Window, func(), error)
	// DSN is how the user named the database (the command's arguments
	// holding that text are pointed at each copy); EnvDSN the variables
	// that named it too (WRITEAMP_DSN, DATABASE_URL).
	DSN    string
	EnvDSN []string
}

func (cp *Copy) updates(g *Gate) []Update { return g.commandUpdates(cp.Argv) }

func (cp *Copy) measure(ctx context.Context, g *Gate, out *Outcome) (*sides, error) {
	cat, err := g.readCatalog(ctx, g.Window.DB)
	if err != nil {
		return nil, measureErr("before", err)
	}
	if err := refuseClusterLevel(g.Schema, g.Migration); err != nil {
		return nil, fmt.Errorf("%w: %w", errRefused, err)
	}
	db := g.server().Database
	if err := refuseNamedOriginal(cp.Argv, cp.DSN, db, g.server().Dialect); err != nil {
		return nil, err
	}
	var size int64
	var writes map[string]int64
	t := cp.Template
	if t != nil {
		if err := t.setServer(g.server()); err != nil {
			return nil, fmt.Errorf("%w: %w", errRefused, err)
		}
		if writes, err = t.tableWrites(ctx, g.Window.DB); err != nil {
			return nil, measureErr("before", fmt.Errorf("read the rows written in %s's tables (pg_stat_user_tables): %w", db, err))
		}
		sessions, rerr := t.requirements(ctx, g.server())
		for _, d := range t.Dropped {
			g.logf("a copy an earlier check left: %s", d)
		}
		size = t.size
		switch {
		case rerr != nil:
			g.logf("note: %s cannot be copied on its own server (%v): copying it into a scratch server instead", db, rerr)
			t = nil
		case sessions > 0:
			g.logf("note: %d other session(s) are connected to %s, and PostgreSQL copies a database on its server only while nobody is: copying it into a scratch server instead", sessions, db)
			t = nil
		}
	} else if cp.Size != nil {
		if size, err = cp.Size(ctx); err != nil {
			return nil, measureErr("before", fmt.Errorf("read the size of %s: %w", db, err))
		}
	}
	if cp.MaxSize > 0 && size > cp.MaxSize {
		return nil, fmt.Errorf("%w: %s is %s, more than --copy-max-size %s: check measures a wrapped command on copies of the database, each costing its size in disk and its copy time. Give a larger --copy-max-size (e.g. --copy-max-size %s), or --in-place to apply, measure and undo the migration on the database itself (for a disposable database)",
			errRefused, db, humanize.IBytes(uint64(size)), humanize.IBytes(uint64(cp.MaxSize)), humanize.IBytes(uint64(size)*2))
	}
	verify := func(ctx context.Context, r *restore.Restoration) {
		win, closeWin, err := cp.OpenOriginal(ctx)
		if err != nil {
			r.CatalogError = err.Error()
			return
		}
		defer closeWin()
		g.compareCatalog(ctx, win.DB, cat, r)
		if cp.Template != nil {
			cp.Template.watchOriginal(ctx, win.DB, writes, r)
		} else {
			r.Limits = append(r.Limits, db+" itself is not watched for writes meanwhile: this server counts no rows per table for it")
		}
	}
	if t != nil {
		if err := t.lock(ctx); err != nil {
			return nil, fmt.Errorf("%w: %w", errRefused, err)
		}
		defer t.unlock(ctx) // after the copies are dropped
		return measureCopies(ctx, g, out, cp.Argv, cp.Output, t, cp.DSN, cp.EnvDSN, verify)
	}
	if cp.Scratch == nil {
		return nil, fmt.Errorf("%w: %s cannot be copied here (no scratch server for %s): run check with --in-place to measure on the database itself", errRefused, db, g.server())
	}
	g.logf("copying %s (%s) into a scratch server", db, humanize.IBytes(uint64(size)))
	srv, err := cp.Scratch(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: a scratch server for the copies: %w", errRefused, err)
	}
	sc := &scratchCopies{srv: srv, openDSN: cp.OpenCopy, dsnText: cp.DSN, envDSN: cp.EnvDSN, dsns: map[string]string{}, db: db}
	g.logf("scratch server ready in %s (%s)", srv.Loaded().Round(time.Millisecond), humanize.IBytes(uint64(srv.Disk())))
	defer func() {
		// Teardown runs to its end even after an interrupt.
		if err := srv.Stop(); err != nil && out.Restore != nil {
			out.Restore.Failed = append(out.Restore.Failed, fmt.Sprintf("stopping the scratch server and removing its directory: %v", err))
		}
	}()
	return measureCopies(ctx, g, out, cp.Argv, cp.Output, sc, cp.DSN, cp.EnvDSN, verify)
}

// scratchCopies are the copies made on a scratch server.
type scratchCopies struct {
	srv     ScratchServer
	openDSN func(ctx context.Context, dsn string) (*measure.Window, func(), error)
	dsnText string
	envDSN  []string
	dsns    map[string]string // live copies: name → DSN
	db      string
	copies  int
	took    time.Duration
}

func (s *scratchCopies) copyOf(ctx context.Context, side string, i int) (string, error) {
	t0 := time.Now()
	name, dsn, err := s.srv.NewCopy(ctx, fmt.Sprintf("%s%d", side, i+1))
	if err != nil {
		return "", err
	}
	s.copies++
	s.took += time.Since(t0)
	s.dsns[name] = dsn
	return name, nil
}

func (s *scratchCopies) drop(ctx context.Context, name string) error {
	if err := s.srv.DropCopy(context.WithoutCancel(ctx), name); err != nil {
		return err
	}
	delete(s.dsns, name)
	return nil
}

func (s *scratchCopies) open(ctx context.Context, name string) (*measure.Window, string, func(), error) {
	dsn := s.dsns[name]
	win, closeWin, err := s.openDSN(ctx, dsn)
	return win, dsn, closeWin, err
}

func (s *scratchCopies) command(args []string, dsn string) []string {
	return pointArgs(args, s.dsnText, dsn)
}

func (s *scratchCopies) env(name, dsn string) []string {
	env := append(s.srv.Env(name), "WRITEAMP_CHECK_DSN="+dsn)
	for _, v := range s.envDSN {
		env = append(env, v+"="+dsn)
	}
	return env
}

// left: the scratch server goes as a whole, so only copies still there
// while it runs count.
func (s *scratchCopies) left(context.Context) (int, error) { return len(s.dsns), nil }

func (s *scratchCopies) cost() string {
	avg := time.Duration(0)
	if s.copies > 0 {
		avg = s.took / time.Duration(s.copies)
	}
	return fmt.Sprintf("%s: started and loaded in %s, %s of disk; %d copies, %s per copy; the server and its directory removed at the end",
		s.srv.Method(), s.srv.Loaded().Round(time.Millisecond), humanize.IBytes(uint64(s.srv.Disk())), s.copies, avg.Round(time.Millisecond))
}

func (s *scratchCopies) how() string {
	return "measured on copies of " + s.db + " on a scratch server of writeamp's own (loaded from a dump of it), each dropped after its measurement, the server removed at the end"
}
