package postgres

import (
	"context"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// PgStatIO reads pg_stat_io (16+): the cluster's shared-buffer writes,
// extends, hits and reads of relations, all backend types. Labelled approx:
// they are every session's, and a page the workload dirtied is written when
// it is evicted or checkpointed, which may fall after the window.
type PgStatIO struct{}

func (PgStatIO) Name() string { return "pg_stat_io" }

func (PgStatIO) Supports(s dialects.Server) error {
	if !s.Has(pg.CapStatIO) {
		return s.Unsupported(pg.CapStatIO)
	}
	return nil
}

func (PgStatIO) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, _ collectors.Scope) ([]collectors.Counter, error) {
	var writes, own, extends, hits, reads int64
	var reset string
	if err := queries.QueryRow(ctx, qr, pg.Name, "pg_stat_io", s.VersionNum).Scan(&writes, &own, &extends, &hits, &reads, &reset); err != nil {
		return nil, err
	}
	db := func(metric *result.Info, v int64, src string) collectors.Counter {
		return collectors.Counter{Key: collectors.NewKey(collectors.DB, "", metric), Value: float64(v), Exactness: result.Approx, Source: "pg_stat_io." + src + " of relations, all sessions, whole cluster"}
	}
	return withReset(resetMark(reset, s), []collectors.Counter{
		db(result.BufferWrites, writes, "writes"),
		db(result.BufferWritesBackend, own, "writes by client backends"),
		db(result.BufferExtends, extends, "extends"),
		db(result.BufferHits, hits, "hits"),
		db(result.BufferReads, reads, "reads"),
	}), nil
}
