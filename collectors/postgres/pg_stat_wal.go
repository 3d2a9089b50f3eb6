package postgres

import (
	"context"
	"fmt"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
)

// PgStatWAL reads the cluster's WAL statistics (14+): record and full-page
// image counts, and its own byte count as a cross-check of the LSN difference
// (they differ by page headers, about 0.5%).
type PgStatWAL struct{}

func (PgStatWAL) Name() string { return "pg_stat_wal" }

func (PgStatWAL) Supports(s dialects.Server) error {
	if !s.Has(pg.CapStatWAL) {
		return fmt.Errorf("%w: %s", dialects.ErrUnsupported, s.Why(pg.CapStatWAL))
	}
	return nil
}

func (PgStatWAL) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, _ collectors.Scope) ([]collectors.Counter, error) {
	var recs, fpi, bytes, full int64
	var reset string
	if err := qr.QueryRowContext(ctx, q("pg_stat_wal", s)).Scan(&recs, &fpi, &bytes, &full, &reset); err != nil {
		return nil, err
	}
	reset = resetMark(reset, s)
	return withReset(reset, []collectors.Counter{
		exact(collectors.DB, "", "log_records", float64(recs), "pg_stat_wal.wal_records (whole cluster)", ""),
		exact(collectors.DB, "", "fpi_count", float64(fpi), "pg_stat_wal.wal_fpi (whole cluster)", ""),
		exact(collectors.DB, "", "log_bytes_stat", float64(bytes), "pg_stat_wal.wal_bytes (whole cluster; excludes page headers)", ""),
		exact(collectors.DB, "", "wal_buffers_full", float64(full), "pg_stat_wal.wal_buffers_full", ""),
	}), nil
}
