package check

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/writeamp/writeamp/dialects"
)

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
