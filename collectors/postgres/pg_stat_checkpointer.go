package postgres

import (
	"context"
	"fmt"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
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
	if err := qr.QueryRowContext(ctx, q("pg_stat_checkpointer", s)).Scan(&n, &reset); err != nil {
		return nil, err
	}
	reset = resetMark(reset, s)
	c := exact(collectors.DB, "", "checkpoints", float64(n), "pg_stat_checkpointer.num_done", "")
	switch {
	case s.VersionNum < 170000:
		c.Exactness, c.Source = result.Approx, "pg_stat_bgwriter.checkpoints_timed + checkpoints_req"
		c.Note = "scheduled checkpoints skipped on an idle server count too"
	case s.VersionNum < 180000:
		c.Exactness, c.Source = result.Approx, "pg_stat_checkpointer.num_timed + num_requested"
		c.Note = "scheduled checkpoints skipped on an idle server count too"
	}
	return withReset(reset, []collectors.Counter{c}), nil
}

// DeriveCheckpoints warns when checkpoints ran inside the window.
func DeriveCheckpoints(d *collectors.Delta) {
	if m := d.Get(key(collectors.DB, "", "checkpoints")); m.OK() && m.V() > 0 {
		d.Warnings = append(d.Warnings, fmt.Sprintf("%.0f checkpoint(s) inside the window (%s): the first change to each page after one writes a full-page image, which the log bytes include (see fpi_bytes)", m.V(), m.Source))
	}
}
