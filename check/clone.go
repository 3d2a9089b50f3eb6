package check

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/writeamp/writeamp/check/restore"
	"github.com/writeamp/writeamp/check/sqlfile"
	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// Cloner measures a wrapped command on throwaway copies of a PostgreSQL
// database (check --clone): CREATE DATABASE … TEMPLATE the user's
// database, one copy per side and repetition, each dropped (WITH (FORCE))
// as soon as it is measured, and on failure and Ctrl-C too. The user's
// database is never written to; its catalog is read before and after to
// prove it.
type Cloner struct {
	// Admin is connected to another database of the same server (the
	// copies are made and dropped from there: a database being copied may
	// have no session).
	Admin *sql.DB
	// Template is the user's database, DSN how the user named it (the
	// command's arguments holding that text are pointed at each copy; ""
	// for the PG* environment).
	Template, DSN string
	// Open connects to a database of the same server and returns its
	// window, a DSN for the command and how to close it.
	Open func(ctx context.Context, database string) (win *measure.Window, dsn string, close func(), err error)
	// Release closes writeamp's own connections to Template.
	Release func()
	// EnvDSN are the variables that named the database in writeamp's
	// environment (WRITEAMP_DSN, DATABASE_URL): the command gets them
	// pointed at the copy.
	EnvDSN []string

	// Dropped are the copies of Template an earlier, killed check left,
	// which this one dropped before copying (for the log).
	Dropped []string

	server   dialects.Server
	texts    map[string]string // the clone blocks of server's version (setServer)
	quote    pgQuoting
	runID    string
	lockConn *sql.Conn // holds the run's lock (cloneleft.go)
	size     int64
	copies   int
	took     time.Duration
}

// cloneBlocks are every query a clone run sends, looked up once for the
// server so that one its version lacks refuses the run before anything is
// copied, instead of failing halfway.
var cloneBlocks = []string{"clone_requirements", "clone_create", "clone_drop", "clone_count", "clone_lock", "clone_unlock", "clone_mark", "clone_original_writes"}

// setServer records the server and looks up the clone blocks for it.
func (c *Cloner) setServer(s dialects.Server) error {
	texts := map[string]string{}
	for _, name := range cloneBlocks {
		text, err := queries.Get("postgres", name, s.VersionNum)
		if err != nil {
			return fmt.Errorf("--clone on %s: %w", s, err)
		}
		texts[name] = text
	}
	c.server, c.texts = s, texts
	return nil
}

// sql is a clone block setServer looked up (cloneBlocks lists them all).
func (c *Cloner) sql(name string) string { return c.texts[name] }

// pgQuoting is PostgreSQL's quoting of names and text, from the registry.
type pgQuoting interface {
	dialects.Quoter
	dialects.LiteralQuoter
}

func postgresQuoting() (pgQuoting, error) {
	q, err := dialects.QuoterOf("postgres")
	if err != nil {
		return nil, fmt.Errorf("--clone: %w", err)
	}
	pq, ok := q.(pgQuoting)
	if !ok {
		return nil, fmt.Errorf("--clone: the postgres dialect does not quote text")
	}
	return pq, nil
}

// ident quotes a database name as PostgreSQL reads it.
func (c *Cloner) ident(name string) string { return c.quote.QuoteIdent(name) }

// prepare checks what a copy needs, before anything is copied, with an
// error that says what to do, and takes the run's lock.
func (c *Cloner) prepare(ctx context.Context, s dialects.Server) error {
	sessions, err := c.requirements(ctx, s)
	if err != nil {
		return err
	}
	if sessions > 0 {
		return fmt.Errorf("--clone: %d other session(s) are connected to %s, and PostgreSQL copies a database only while nobody is connected to it: stop them (SELECT pid, usename, application_name FROM pg_stat_activity WHERE datname = '%s'), check against a database nobody uses, or drop --clone (check then copies %s into a scratch server)", sessions, c.Template, strings.ReplaceAll(c.Template, "'", "''"), c.Template)
	}
	return c.lock(ctx)
}

// requirements closes writeamp's own sessions on the database and reads
// whether a TEMPLATE copy may be made: the error says what the login
// lacks; sessions are the other sessions connected to the database (a
// copy waits for none).
func (c *Cloner) requirements(ctx context.Context, s dialects.Server) (int, error) {
	if s.Dialect != "postgres" {
		return 0, fmt.Errorf("--clone copies a database with CREATE DATABASE … TEMPLATE, which only PostgreSQL has; on %s drop --clone (check then measures on a scratch server)", s)
	}
	if err := c.setServer(s); err != nil {
		return 0, err
	}
	q, err := postgresQuoting()
	if err != nil {
		return 0, err
	}
	c.quote = q
	// Copies of this database that a killed check left go first: their
	// lock is free and no session uses them, so no run of writeamp can.
	if left, err := CloneLeftovers(ctx, c.Admin, s, c.Template, true); err == nil {
		for _, l := range left {
			if strings.HasSuffix(l, "; dropped") {
				c.Dropped = append(c.Dropped, strings.TrimSpace(l))
			}
		}
	}
	b := make([]byte, 4)
	rand.Read(b)
	c.runID = hex.EncodeToString(b)
	c.Release()
	var super, createdb, template, owner bool
	var sessions int
	// A session that just closed (writeamp's own, a step of the user's) is
	// gone from pg_stat_activity only once its backend has exited: a few
	// moments are allowed for that.
	for deadline := time.Now().Add(3 * time.Second); ; {
		err := c.Admin.QueryRowContext(ctx, c.sql("clone_requirements"), c.Template).Scan(&super, &createdb, &template, &owner, &sessions, &c.size)
		if err != nil {
			return 0, fmt.Errorf("--clone: read what copying %s needs: %w", c.Template, err)
		}
		if sessions == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	user := s.User
	switch {
	case !super && !createdb:
		return sessions, fmt.Errorf("--clone: %s may not create databases: ALTER ROLE %s CREATEDB (as a superuser), or drop --clone (check then measures on a scratch server)", user, c.ident(user))
	case !super && !owner && !template:
		return sessions, fmt.Errorf("--clone: only a superuser or the owner of %s may copy it (it is not a template): ALTER DATABASE %s OWNER TO %s, or run check as its owner", c.Template, c.ident(c.Template), c.ident(user))
	}
	return sessions, nil
}

// copyOf creates a copy named for the side and repetition and returns its
// name; drop removes it.
func (c *Cloner) copyOf(ctx context.Context, side string, i int) (string, error) {
	name := fmt.Sprintf("writeamp_ck_%s_%s%d", c.runID, side, i+1)
	q := strings.NewReplacer("{{clone}}", c.ident(name), "{{template}}", c.ident(c.Template)).Replace(c.sql("clone_create"))
	t0 := time.Now()
	if _, err := c.Admin.ExecContext(ctx, q); err != nil {
		c.drop(ctx, name) // an interrupted copy may have left its entry
		return "", fmt.Errorf("--clone: copy %s: %w", c.Template, err)
	}
	c.copies++
	c.took += time.Since(t0)
	if err := c.mark(ctx, name); err != nil {
		c.drop(ctx, name)
		return "", fmt.Errorf("--clone: mark the copy %s as writeamp's: %w", name, err)
	}
	return name, nil
}

// drop removes a copy within 30 s, even after an interrupt.
func (c *Cloner) drop(ctx context.Context, name string) error {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	_, err := c.Admin.ExecContext(cctx, strings.ReplaceAll(c.sql("clone_drop"), "{{clone}}", c.ident(name)))
	return err
}

// left counts this run's copies still on the server.
func (c *Cloner) left(ctx context.Context) (int, error) {
	var n int
	err := c.Admin.QueryRowContext(ctx, c.sql("clone_count"), "writeamp\\_ck\\_"+c.runID+"\\_%").Scan(&n)
	return n, err
}

// cost states what the copies cost.
func (c *Cloner) cost() string {
	strategy := "STRATEGY FILE_COPY"
	if c.server.VersionNum < 150000 {
		strategy = "a file copy"
	}
	avg := time.Duration(0)
	if c.copies > 0 {
		avg = c.took / time.Duration(c.copies)
	}
	return fmt.Sprintf("%d copies of %s (%s each, %s), one at a time: %s of extra disk at most, %s per copy",
		c.copies, c.Template, humanize.IBytes(uint64(c.size)), strategy, humanize.IBytes(uint64(c.size)), avg.Round(time.Millisecond))
}

// command points the command at the copy: every argument holding the
// database's DSN text gets the copy's instead; env says it too.
func (c *Cloner) command(args []string, dsn string) []string { return pointArgs(args, c.DSN, dsn) }

// pointArgs is args with every occurrence of the database's DSN text
// replaced by the copy's (args itself when there is no text).
func pointArgs(args []string, dsnText, copyDSN string) []string {
	if dsnText == "" {
		return args
	}
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = strings.ReplaceAll(a, dsnText, copyDSN)
	}
	return out
}

func (c *Cloner) env(name, dsn string) []string {
	env := []string{"PGDATABASE=" + name, "WRITEAMP_CHECK_DSN=" + dsn}
	for _, v := range c.EnvDSN {
		env = append(env, v+"="+dsn)
	}
	return env
}

// open, how: the Cloner as a copySource.
func (c *Cloner) open(ctx context.Context, name string) (*measure.Window, string, func(), error) {
	return c.Open(ctx, name)
}

func (c *Cloner) how() string {
	return "measured on copies of " + c.Template + " (CREATE DATABASE … TEMPLATE), each dropped after its measurement"
}

// measure measures each side on a copy of its own, --schema (and after, the
// migration) applied to the copy. Nothing is applied to the database
// itself, so there is nothing to undo: the copies are dropped.
func (cl *Clone) measure(ctx context.Context, g *Gate, out *Outcome) (*sides, error) {
	c := cl.Cloner
	if c == nil {
		return nil, fmt.Errorf("%w: --clone needs an administrative connection to copy the database, and none was opened", errRefused)
	}
	cat, err := g.readCatalog(ctx, g.Window.DB)
	if err != nil {
		return nil, measureErr("before", err)
	}
	if err := refuseClusterLevel(g.Schema, g.Migration); err != nil {
		return nil, fmt.Errorf("%w: %w", errRefused, err)
	}
	if err := refuseNamedOriginal(cl.Argv, c.DSN, g.server().Database, g.server().Dialect); err != nil {
		return nil, err
	}
	if err := c.setServer(g.server()); err != nil {
		return nil, fmt.Errorf("%w: %w", errRefused, err)
	}
	writes, err := c.tableWrites(ctx, g.Window.DB)
	if err != nil {
		return nil, measureErr("before", fmt.Errorf("--clone: read the rows written in %s's tables (pg_stat_user_tables): %w", c.Template, err))
	}
	err = c.prepare(ctx, g.server())
	for _, d := range c.Dropped {
		g.logf("a copy an earlier check left: %s", d)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errRefused, err)
	}
	defer c.unlock(ctx) // after the copies are dropped (the deferred check in measureCopies runs first)
	return measureCopies(ctx, g, out, cl.Argv, cl.Output, c, c.DSN, c.EnvDSN, func(ctx context.Context, r *restore.Restoration) {
		win, _, closeWin, err := c.Open(ctx, c.Template)
		if err != nil {
			r.CatalogError = err.Error()
			return
		}
		defer closeWin()
		g.compareCatalog(ctx, win.DB, cat, r)
		c.watchOriginal(ctx, win.DB, writes, r)
	})
}

// copySource makes, opens and drops the copies a wrapped command is
// measured on: a Cloner on the database's own server, or a scratch server.
type copySource interface {
	copyOf(ctx context.Context, side string, i int) (string, error)
	drop(ctx context.Context, name string) error
	open(ctx context.Context, name string) (win *measure.Window, dsn string, close func(), err error)
	command(args []string, dsn string) []string
	env(name, dsn string) []string
	left(ctx context.Context) (int, error)
	cost() string
	how() string
}

// measureCopies measures each side on a copy of its own from src; verify
// reads the original database at the end (after every copy is dropped)
// and records in r what is not as it was.
func measureCopies(ctx context.Context, g *Gate, out *Outcome, argv []string, output io.Writer, src copySource, dsnText string, envDSN []string, verify func(context.Context, *restore.Restoration)) (*sides, error) {
	if dsnText != "" && !strings.Contains(strings.Join(argv, "\x00"), dsnText) {
		g.logf("note: no argument of the command holds the --dsn text, so only its environment points it at the copies (PG*/MYSQL_* variables, WRITEAMP_CHECK_DSN%s)", strings.Join(append([]string{""}, envDSN...), ", "))
	}
	r := &restore.Restoration{Method: restore.MethodClone, How: src.how()}
	out.Restore = r
	var made []string
	defer func() {
		r.Cost = src.cost()
		if n, err := src.left(context.WithoutCancel(ctx)); err != nil || n > 0 {
			r.Failed = append(r.Failed, fmt.Sprintf("copies left: %d (%v); drop them by hand: %s", n, err, strings.Join(made, ", ")))
			r.Added = append(r.Added, fmt.Sprintf("copies %s (%d left)", strings.Join(made, ", "), n))
		}
		verify(context.WithoutCancel(ctx), r)
	}()
	res := measure.NewResult(g.server(), g.Window.Version)
	res.Workload = result.Workload{Name: "command", Params: map[string]any{"command": strings.Join(measure.RedactArgs(argv), " ")}}
	// measureMig: the copy gets --schema first, then the migration alone in
	// a window of its own (applycost.go), on the first "after" copy.
	side := func(label, tag string, i int, files []sqlfile.File, measureMig bool) (run *result.Run, notes []string, err error) {
		name, err := src.copyOf(ctx, tag, i)
		if err != nil {
			return nil, nil, err
		}
		made = append(made, name)
		defer func() {
			if derr := src.drop(ctx, name); derr != nil {
				err = errors.Join(err, fmt.Errorf("dropping the copy %s failed: %w", name, derr))
			}
		}()
		win, dsn, closeWin, err := src.open(ctx, name)
		if err != nil {
			return nil, nil, measureErr(label, err)
		}
		defer closeWin()
		g.logf("%s: on the copy %s", label, name)
		save := g.Scope
		defer func() { g.Scope = save }()
		if measureMig {
			if err := g.applyPublished(ctx, win, g.Schema); err != nil {
				return nil, nil, fmt.Errorf("%w: %s: %w", errApply, label, err)
			}
			if g.Scope, err = collectors.Resolve(ctx, win.DB, win.Server, save); err != nil {
				return nil, nil, fmt.Errorf("--scope-schema: %w", err)
			}
			if res.Migration, err = g.applyMeasured(ctx, win, g.Migration); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", label, err)
			}
			g.Scope = save
		} else if err := g.applyPublished(ctx, win, files); err != nil {
			return nil, nil, fmt.Errorf("%w: %s: %w", errApply, label, err)
		}
		if g.Scope, err = collectors.Resolve(ctx, win.DB, win.Server, g.Scope); err != nil {
			return nil, nil, fmt.Errorf("--scope-schema: %w", err)
		}
		return g.measureCommand(ctx, win, label, src.command(argv, dsn), src.env(name, dsn), output)
	}
	var befores, afters []*result.Run
	for i := range g.repeat() {
		before, notes, err := side(repLabel("before", i, g.repeat()), "b", i, g.Schema, false)
		if err != nil {
			return nil, err
		}
		res.Notes = append(res.Notes, notes...)
		after, _, err := side(repLabel("after", i, g.repeat()), "a", i, append(append([]sqlfile.File{}, g.Schema...), g.Migration...), i == 0)
		if err != nil {
			return nil, err
		}
		befores, afters = append(befores, before), append(afters, after)
	}
	if res.Migration != nil {
		res.Notes = append(res.Notes, migrationNote(res.Migration))
	}
	res.Notes = append(res.Notes, fmt.Sprintf("before: the command on a copy of %s%s; after: the same command on another copy with the migration (%s) applied; %s; copies: %s",
		g.server().Database, withSchema(g.Schema), paths(g.Migration), perOpNote(afters[0]), src.cost()))
	return &sides{res, befores, afters}, nil
}
