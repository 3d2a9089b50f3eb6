package postgres

import (
	"context"
	"fmt"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// PgStatCheckpointer counts checkpoints, so a window that contains one says
// so: the first change to each page after a checkpoint writes a full-page
// image, which the window's log bytes then include. The view is
// pg_stat_bgwriter up to 16 and pg_stat_checkpointer from 17.
type PgStatCheckpointer struct{}

func (PgStatCheckpointer) Name() string                   { return "pg_stat_checkpointer" }
func (PgStatCheckpointer) Supports(dialects.Server) error { return nil }

func (PgStatCheckpointer) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, _ collectors.Scope) ([]collectors.Counter, error) {
	var n int64
	var reset string
	// The block's headers say which view this version reads and how exact
	// its count is (the version gates live there only). A version without
	// a variant is an error, which the snapshot records as this source's
	// Missing.
	b, err := queries.Variant(pg.Name, "pg_stat_checkpointer", s.VersionNum)
	if err != nil {
		return nil, err
	}
	if err := qr.QueryRowContext(ctx, b.SQL).Scan(&n, &reset); err != nil {
		return nil, err
	}
	reset = resetMark(reset, s)
	c := exact(collectors.DB, "", result.Checkpoints, float64(n), b.Meta["source"], "")
	c.Exactness, c.Note = result.Exactness(b.Meta["exactness"]), b.Meta["note"]
	return withReset(reset, []collectors.Counter{c}), nil
}

// DeriveCheckpoints warns when checkpoints ran inside the window.
func DeriveCheckpoints(d *collectors.Delta) {
	if m := d.Get(collectors.NewKey(collectors.DB, "", result.Checkpoints)); m.OK() && m.V() > 0 {
		d.Warn(collectors.WarnCheckpoint, "", "", fmt.Sprintf("%.0f checkpoint(s) inside the window (%s): the first change to each page after one writes a full-page image, which the log bytes include (see fpi_bytes)", m.V(), m.Source))
	}
}
