package main

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/writeamp/writeamp/check"
	"github.com/writeamp/writeamp/dialects"
	mysqld "github.com/writeamp/writeamp/dialects/mysql"
	pgd "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/internal/scratch"
	"github.com/writeamp/writeamp/measure"
)

// newCloner wires check --clone to the connected PostgreSQL: an admin
// connection to a maintenance database of the same server (postgres, or
// template1 when the user's database is postgres or there is none), and a
// way to open a window on any of its databases.
func newCloner(ctx context.Context, t *target, log io.Writer) (*check.Cloner, func(), error) {
	d, ok := t.Dialect.(pgd.Dialect)
	if !ok {
		return nil, nil, usagef("--clone copies a database with CREATE DATABASE … TEMPLATE, which only PostgreSQL has; %s has no such copy: pass --down, or let check invert the migration", t.Server)
	}
	template := t.Server.Database
	var admin *dialects.Target
	var err error
	for _, maint := range []string{"postgres", "template1"} {
		if maint == template {
			continue
		}
		db, oerr := d.OpenDatabase(ctx, t.DSN, maint, t.opts...)
		if oerr != nil {
			err = errors.Join(err, oerr)
			continue
		}
		admin = &dialects.Target{DB: db}
		break
	}
	if admin == nil {
		return nil, nil, exitError{code: exitUsage, err: errors.Join(errors.New("--clone: cannot connect to a maintenance database (postgres, template1) to make the copies from"), err)}
	}
	c := &check.Cloner{
		Admin:    admin.DB,
		Template: template,
		DSN:      t.DSN,
		Release:  func() { t.DB.Close() },
		Open: func(ctx context.Context, database string) (*measure.Window, string, func(), error) {
			db, err := d.OpenDatabase(ctx, t.DSN, database, t.opts...)
			if err != nil {
				return nil, "", nil, err
			}
			db.SetMaxOpenConns(9) // one more for the wait sampler
			target, err := dialects.NewTarget(ctx, d, db)
			if err != nil {
				db.Close()
				return nil, "", nil, err
			}
			win, err := measure.NewWindow(target, log)
			if err != nil {
				db.Close()
				return nil, "", nil, err
			}
			win.Version = toolVersion()
			win.Observers = append(win.Observers, &measure.Waits{})
			return win, pgd.WithDatabase(t.DSN, database), func() { db.Close() }, nil
		},
	}
	c.EnvDSN = envNaming(t.DSN)
	return c, func() { admin.DB.Close() }, nil
}

// copyOpts are check's flags for the default copy of -- COMMAND.
type copyOpts struct {
	PgBin string // --pg-bin: the scratch PostgreSQL's binaries
}

// wireCopy sets up check's default mode for -- COMMAND: TEMPLATE copies on
// the database's own PostgreSQL when nobody else is connected to it, else
// a scratch server from this machine's binaries loaded from a dump.
func wireCopy(ctx context.Context, cp *check.Copy, t *target, log io.Writer, o copyOpts) (func(), error) {
	cp.DSN = t.DSN
	cp.EnvDSN = envNaming(t.DSN)
	openDSN := func(ctx context.Context, dsn string) (*measure.Window, func(), error) {
		db, err := t.Dialect.Open(ctx, dsn, t.opts...)
		if err != nil {
			return nil, nil, err
		}
		db.SetMaxOpenConns(9) // one more for the wait sampler
		target, err := dialects.NewTarget(ctx, t.Dialect, db)
		if err != nil {
			db.Close()
			return nil, nil, err
		}
		win, err := measure.NewWindow(target, log)
		if err != nil {
			db.Close()
			return nil, nil, err
		}
		win.Version = toolVersion()
		win.Observers = append(win.Observers, &measure.Waits{})
		return win, func() { db.Close() }, nil
	}
	cp.OpenCopy = openDSN
	cp.OpenOriginal = func(ctx context.Context) (*measure.Window, func(), error) { return openDSN(ctx, t.DSN) }
	database := t.Server.Database
	switch t.Dialect.(type) {
	case pgd.Dialect:
		c, closeAdmin, err := newCloner(ctx, t, log)
		if err != nil {
			return nil, err
		}
		cp.Template = c
		user := t.Server.User
		if cfg, err := pgd.Config(t.DSN); err == nil && cfg.User != "" {
			user = cfg.User
		}
		major := t.Server.VersionNum / 10000
		cp.Scratch = func(ctx context.Context) (check.ScratchServer, error) {
			return scratch.StartPostgres(ctx, scratch.PostgresOptions{Bin: o.PgBin, Major: major, SourceDSN: t.DSN, SourceEnv: os.Environ(),
				Database: database, User: user, Log: log})
		}
		return closeAdmin, nil
	case mysqld.Dialect:
		cfg, err := mysqld.Config(t.DSN)
		if err != nil {
			return nil, err
		}
		var args []string
		var ps string
		if t.DB.QueryRowContext(ctx, "SELECT @@performance_schema").Scan(&ps) == nil && (ps == "1" || ps == "ON") {
			args = append(args, "--performance-schema=ON")
		}
		if t.DB.QueryRowContext(ctx, "SELECT @@userstat").Scan(&ps) == nil && (ps == "1" || ps == "ON") {
			args = append(args, "--userstat=ON")
		}
		cp.Size = func(ctx context.Context) (int64, error) {
			var n sql.NullInt64
			err := t.DB.QueryRowContext(ctx, "SELECT SUM(data_length + index_length) FROM information_schema.tables WHERE table_schema = ?", database).Scan(&n)
			return n.Int64, err
		}
		cp.Scratch = func(ctx context.Context) (check.ScratchServer, error) {
			return scratch.StartMariaDB(ctx, scratch.MariaDBOptions{Source: cfg, Database: database, Args: args, Log: log})
		}
		return func() {}, nil
	}
	return func() {}, nil // no copy here: check refuses, naming --in-place
}

// envNaming are the variables of writeamp's environment whose value is the
// measured database's DSN exactly (WRITEAMP_DSN, DATABASE_URL, a config's
// dsn_env, a test suite's own): the wrapped command gets each pointed at
// the copy, so a workload that reads the DSN from one never reaches the
// database itself.
func envNaming(dsn string) []string {
	if dsn == "" {
		return nil
	}
	var out []string
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok && v == dsn && k != "" {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
