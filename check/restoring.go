package check

import (
	"context"
	"strings"
	"time"

	"github.com/writeamp/writeamp/check/restore"
	"github.com/writeamp/writeamp/dialects"
)

// DefaultLockTimeout is restore.DefaultLockTimeout, --lock-timeout's default.
const DefaultLockTimeout = restore.DefaultLockTimeout

func (g *Gate) lockTimeout() time.Duration {
	if g.LockTimeout == nil {
		return DefaultLockTimeout
	}
	return *g.LockTimeout
}

// env is what the restore needs of the gate: the measured server and pool,
// the lock-wait bound and the log.
func (g *Gate) env() *restore.Env {
	return &restore.Env{Server: g.server(), DB: g.Window.DB, LockTimeout: g.lockTimeout(), Log: g.logf}
}

// readCatalog is ReadCatalog on a session bounded by --lock-timeout: a
// catalog read that waits longer on a lock gives up naming the blocker.
func (g *Gate) readCatalog(ctx context.Context, q dialects.Querier) (cat restore.Catalog, err error) {
	err = g.env().BoundedRead(ctx, q, func(q dialects.Querier) error {
		cat, err = restore.ReadCatalog(ctx, q, g.server())
		return err
	})
	return cat, err
}

// compareCatalog reads the catalog again, even after an interrupt, and
// holds it to before.
func (g *Gate) compareCatalog(ctx context.Context, q dialects.Querier, before restore.Catalog, r *restore.Restoration) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	after, err := g.readCatalog(cctx, q)
	if err != nil {
		r.CatalogError = err.Error()
		g.logf("warning: restore not proven: %v", err)
		return
	}
	r.Checked, r.Compared = true, len(before)
	r.Added, r.Removed = before.Diff(after)
	if !r.OK() {
		g.logf("warning: %s", strings.Join(r.Lines(), "\n"))
	}
}

// acquire is restore's Env.Acquire: the database's check lock, after
// finishing what a killed check left, noted for the report.
func (g *Gate) acquire(ctx context.Context) (*restore.Guard, error) {
	gd, finished, err := g.env().Acquire(ctx)
	if finished != "" {
		g.finished = append(g.finished, finished)
	}
	return gd, err
}

// settlePending finishes, before a check that works on a copy (or in its
// own schema) starts, the undo a killed in-place check left on the
// database: a copy made of a database with the migration still applied
// would measure that migration as the "before". It waits for an in-place
// check running there, as acquire does.
func (g *Gate) settlePending(ctx context.Context) error {
	gd, err := g.acquire(ctx)
	if err != nil {
		return err
	}
	gd.Release()
	return nil
}
