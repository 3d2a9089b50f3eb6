package postgres

import (
	"context"
	"fmt"
	"strconv"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/result"
)

// PgStatioUserTables and PgStatioUserIndexes read the shared buffers each
// relation asked for: hits (already in memory) and reads (brought in). They
// are exact per relation but count every session's accesses, and a buffer
// access is not a page written: pg_stat_io has the writes.
type PgStatioUserTables struct{}

func (PgStatioUserTables) Name() string                   { return "pg_statio_user_tables" }
func (PgStatioUserTables) Supports(dialects.Server) error { return nil }

func (PgStatioUserTables) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, sc collectors.Scope) ([]collectors.Counter, error) {
	return statio(ctx, qr, s, sc, collectors.Table, "pg_statio_user_tables", "heap_blks")
}

type PgStatioUserIndexes struct{}

func (PgStatioUserIndexes) Name() string                   { return "pg_statio_user_indexes" }
func (PgStatioUserIndexes) Supports(dialects.Server) error { return nil }

func (PgStatioUserIndexes) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, sc collectors.Scope) ([]collectors.Counter, error) {
	return statio(ctx, qr, s, sc, collectors.Index, "pg_statio_user_indexes", "idx_blks")
}

func statio(ctx context.Context, qr dialects.Querier, s dialects.Server, sc collectors.Scope, level collectors.Level, view, col string) ([]collectors.Counter, error) {
	rows, err := qr.QueryContext(ctx, q(view, s), schemaArg(sc))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []collectors.Counter
	for rows.Next() {
		var schema, table, name, reset string
		var id, hits, reads int64
		dest := []any{&schema, &table, &name, &id, &hits, &reads, &reset}
		if level == collectors.Table {
			dest = []any{&schema, &table, &id, &hits, &reads, &reset}
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		if !sc.InScope(schema, table) {
			continue
		}
		obj := fqn(schema, table)
		if level == collectors.Index {
			obj = fqn(schema, name)
		}
		ident := strconv.FormatInt(id, 10)
		out = append(out, withReset(resetMark(reset, s), []collectors.Counter{
			exact(level, obj, "buffer_hits", float64(hits), view+"."+col+"_hit (every session's accesses)", ident),
			exact(level, obj, "buffer_reads", float64(reads), view+"."+col+"_read (every session's accesses)", ident),
		})...)
	}
	return out, rows.Err()
}

// PgStatIO reads pg_stat_io (16+): the cluster's shared-buffer writes,
// extends, hits and reads of relations, all backend types. Labelled approx:
// they are every session's, and a page the workload dirtied is written when
// it is evicted or checkpointed, which may fall after the window.
type PgStatIO struct{}

func (PgStatIO) Name() string { return "pg_stat_io" }

func (PgStatIO) Supports(s dialects.Server) error {
	if !s.Has(pg.CapStatIO) {
		return fmt.Errorf("%w: %s", dialects.ErrUnsupported, s.Why(pg.CapStatIO))
	}
	return nil
}

func (PgStatIO) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, _ collectors.Scope) ([]collectors.Counter, error) {
	var writes, own, extends, hits, reads int64
	var reset string
	if err := qr.QueryRowContext(ctx, q("pg_stat_io", s)).Scan(&writes, &own, &extends, &hits, &reads, &reset); err != nil {
		return nil, err
	}
	db := func(metric string, v int64, src string) collectors.Counter {
		return collectors.Counter{Key: collectors.Key{Level: collectors.DB, Metric: metric}, Value: float64(v), Exactness: result.Approx, Source: "pg_stat_io." + src + " of relations, all sessions, whole cluster"}
	}
	return withReset(resetMark(reset, s), []collectors.Counter{
		db("buffer_writes", writes, "writes"),
		db("buffer_writes_backend", own, "writes by client backends"),
		db("buffer_extends", extends, "extends"),
		db("buffer_hits", hits, "hits"),
		db("buffer_reads", reads, "reads"),
	}), nil
}
