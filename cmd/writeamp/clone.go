package main

import (
	"context"
	"errors"
	"io"
	"os"

	"github.com/writeamp/writeamp/check"
	"github.com/writeamp/writeamp/dialects"
	pgd "github.com/writeamp/writeamp/dialects/postgres"
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
		db, oerr := d.OpenDatabase(ctx, t.DSN, maint)
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
			db, err := d.OpenDatabase(ctx, t.DSN, database)
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
			win.Observers = append(win.Observers, &measure.Waits{})
			return win, pgd.WithDatabase(t.DSN, database), func() { db.Close() }, nil
		},
	}
	for _, v := range []string{"WRITEAMP_DSN", "DATABASE_URL"} {
		if os.Getenv(v) != "" && os.Getenv(v) == t.DSN {
			c.EnvDSN = append(c.EnvDSN, v)
		}
	}
	return c, func() { admin.DB.Close() }, nil
}
