package postgres

import (
	"context"
	"strconv"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
)

// PgStatUserIndexes reads index reads. PostgreSQL keeps no per-index insert
// counter: leaf inserts come from pg_walinspect, or are derived.
type PgStatUserIndexes struct{}

func (PgStatUserIndexes) Name() string                   { return "pg_stat_user_indexes" }
func (PgStatUserIndexes) Supports(dialects.Server) error { return nil }

func (PgStatUserIndexes) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, sc collectors.Scope) ([]collectors.Counter, error) {
	rows, err := qr.QueryContext(ctx, q("pg_stat_user_indexes", s), schemaArg(sc))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]collectors.Counter, 0, 3*1024)
	for rows.Next() {
		var schema, table, name string
		var id, scans, read, fetch int64
		var reset string
		if err := rows.Scan(&schema, &table, &name, &id, &scans, &read, &fetch, &reset); err != nil {
			return nil, err
		}
		reset = resetMark(reset, s)
		if !sc.InScope(schema, table) {
			continue
		}
		obj, ident := fqn(schema, name), strconv.FormatInt(id, 10)
		for _, c := range []collectors.Counter{
			exact(collectors.Index, obj, "scans", float64(scans), "pg_stat_user_indexes.idx_scan", ident),
			exact(collectors.Index, obj, "tuples_read", float64(read), "pg_stat_user_indexes.idx_tup_read", ident),
			exact(collectors.Index, obj, "tuples_fetched", float64(fetch), "pg_stat_user_indexes.idx_tup_fetch", ident),
		} {
			c.Reset = reset
			out = append(out, c)
		}
	}
	return out, rows.Err()
}
