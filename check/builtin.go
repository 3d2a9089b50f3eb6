package check

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/writeamp/writeamp/check/restore"
	"github.com/writeamp/writeamp/check/sqlfile"
	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/measure"
	"github.com/writeamp/writeamp/result"
	"github.com/writeamp/writeamp/workloads"
)

// measure runs the built-in workload on a fresh schema before
// and on a fresh schema with the migration applied after (Repeat times
// each, alternating); same parameters and seed, so the same work. The
// migration never touches the database's own objects: it is applied inside
// the workload's schema, which is dropped after each measurement; the
// catalog read before and after proves it.
func (b *Builtin) measure(ctx context.Context, g *Gate, out *Outcome) (*sides, error) {
	if err := g.canConfine(ctx); err != nil {
		return nil, err
	}
	cat, err := g.readCatalog(ctx, g.Window.DB)
	if err != nil {
		return nil, measureErr("before", err)
	}
	out.Restore = &restore.Restoration{Method: restore.MethodWorkload, How: "the migration was applied inside the workload's own schemas (" + g.howInSchema() + "), which were dropped after each measurement"}
	defer g.compareCatalog(ctx, g.Window.DB, cat, out.Restore)
	// The first "after" measures the apply step in a window of its own
	// (applycost.go): the workload's schema filled and --schema applied,
	// then the migration alone, before the workload's window opens.
	var mig *result.Run
	one := func(label string, files []sqlfile.File, measureMig bool) (*result.Result, error) {
		w := b.Workload.Fresh()
		hooks := w.(workloads.CheckHooks)
		if g.runID != "" {
			hooks.SetRunID(g.runID)
		}
		hooks.SetAfterPrepare(func(ctx context.Context, conn *sql.Conn, schema string) error {
			if !measureMig {
				if err := g.apply(ctx, conn, schema, files); err != nil {
					return fmt.Errorf("%w: %w", errApply, err)
				}
				return nil
			}
			if err := g.apply(ctx, conn, schema, g.Schema); err != nil {
				return fmt.Errorf("%w: %w", errApply, err)
			}
			// Prepare's connection stays as it is (Prepare closes and
			// publishes it when the hook returns: on PostgreSQL 13/14
			// publishing closes it); the window's settle waits for earlier
			// statistics where the dialect can.
			var err error
			mig, err = g.measureApply(ctx, g.Window, collectors.Scope{Schemas: []string{schema}}, schema, g.Migration)
			return err
		})
		g.logf("%s: measuring %s (%s) with %s", label, w.Meta().Name, b.Variant, orNone(paths(files)))
		exp := &measure.Experiment{Window: g.Window, Workload: w, Variants: []string{b.Variant}, Concurrency: b.Concurrency, Progress: g.Progress}
		res, err := exp.Run(ctx)
		if err != nil {
			if errors.Is(err, errApply) {
				return nil, fmt.Errorf("%s: %w", label, err)
			}
			return nil, measureErr(label, err)
		}
		return res, nil
	}
	var res *result.Result
	var befores, afters []*result.Run
	for i := range g.repeat() {
		r1, err := one(repLabel("before", i, g.repeat()), g.Schema, false)
		if err != nil {
			return nil, err
		}
		r2, err := one(repLabel("after", i, g.repeat()), append(append([]sqlfile.File{}, g.Schema...), g.Migration...), i == 0)
		if err != nil {
			return nil, err
		}
		bf, a := r1.Runs[0], r2.Runs[0]
		if err := resetRefusal(repLabel("before", i, g.repeat()), &bf); err != nil {
			return nil, err
		}
		if err := resetRefusal(repLabel("after", i, g.repeat()), &a); err != nil {
			return nil, err
		}
		bf.Label, a.Label = "before", "after"
		befores, afters = append(befores, &bf), append(afters, &a)
		if res == nil {
			res = r1
		}
		res.Notes = append(res.Notes, r2.Notes...)
	}
	if mig != nil {
		res.Migration = mig
		res.Notes = append(res.Notes, migrationNote(mig))
	}
	res.Notes = result.Unique(append(res.Notes, fmt.Sprintf("before: variant %s as is%s; after: the same with the migration (%s) applied in the workload's schema (%s), same parameters and seed",
		b.Variant, withSchema(g.Schema), paths(g.Migration), g.howInSchema())))
	return &sides{res, befores, afters}, nil
}

// repLabel names repetition i of n in the log ("before", or "before 2/3").
func repLabel(side string, i, n int) string {
	if n == 1 {
		return side
	}
	return fmt.Sprintf("%s %d/%d", side, i+1, n)
}

// inSchema makes unqualified names on conn mean the built-in workload's
// own schema, so a migration written for the application's tables
// (CREATE INDEX … ON one of its tables …) applies to the workload's copy
// of them, and returns what puts conn back. Each dialect has its own way
// (dialects.SchemaEnterer; its statements in queries/<dialect>/check.sql):
//
//	PostgreSQL  search_path = schema, public
//	MySQL       USE schema (the workload's schema is a database)
//	Oracle      ALTER SESSION SET CURRENT_SCHEMA (the workload's user)
//	SQL Server  EXECUTE AS a user without login whose default schema it is
func (g *Gate) inSchema(ctx context.Context, conn *sql.Conn, schema string) (leave func(context.Context) error, err error) {
	e, err := dialects.SchemaEntererOf(g.server().Dialect)
	if err != nil {
		return nil, err
	}
	return e.EnterSchema(ctx, conn, g.server(), schema)
}

// howInSchema names how inSchema works on the gate's server, for reports.
func (g *Gate) howInSchema() string {
	if _, err := dialects.ConfinerOf(g.server().Dialect); err == nil && g.OpenAs != nil {
		return "as a login created for the run that owns only that schema"
	}
	if e, err := dialects.SchemaEntererOf(g.server().Dialect); err == nil {
		return e.HowSchemaEntered()
	}
	return "no way on " + g.server().Dialect
}

// confine returns the session the built-in workload's migration (and
// --schema) runs on: where the dialect can, a login created for the run
// that owns the workload's schema and holds nothing else (dialects.Confiner),
// so a statement naming the user's own objects fails in the server; no list
// of what a migration might touch is involved. leave releases it and
// reports, as bad input, anything the login created outside the schema
// (which goes with the login). Dialects without a Confiner (SQL Server,
// Oracle) enter the schema on conn as before (inschema.go), which only
// resolves unqualified names.
func (g *Gate) confine(ctx context.Context, conn *sql.Conn, schema string) (*sql.Conn, func(context.Context) error, error) {
	c, err := dialects.ConfinerOf(g.server().Dialect)
	if err != nil || g.OpenAs == nil {
		leave, err := g.inSchema(ctx, conn, schema)
		return conn, leave, err
	}
	cf, err := c.Confine(ctx, conn, g.server(), schema, g.OpenAs)
	if err != nil {
		return nil, nil, err
	}
	return cf.Conn, func(ctx context.Context) error {
		// The confined session's statistics are published before it ends,
		// so a measured apply step counts them in its own window.
		perr := g.Window.EndSession(ctx, cf.Conn)
		if err := cf.Release(ctx); err != nil {
			if errors.Is(err, dialects.ErrOutside) {
				return fmt.Errorf("the migration may change only the workload's schema %s: %w", schema, err)
			}
			return err
		}
		return perr
	}, nil
}

// canConfine refuses, before anything runs, a login that may not create the
// confined login, with the GRANT that lets it.
func (g *Gate) canConfine(ctx context.Context) error {
	c, err := dialects.ConfinerOf(g.server().Dialect)
	if err != nil || g.OpenAs == nil {
		return nil
	}
	cc, ok := c.(interface {
		CanConfine(context.Context, dialects.Querier, dialects.Server) error
	})
	if !ok {
		return nil
	}
	if err := cc.CanConfine(ctx, g.Window.DB, g.server()); err != nil {
		return fmt.Errorf("%w: %w", errApply, err)
	}
	return nil
}
