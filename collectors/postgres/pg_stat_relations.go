package postgres

import (
	"context"
	"database/sql"
	"strconv"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// PgStatRelations reads, in one pass over the catalog's tables and indexes,
// what pg_stat_user_tables (row counts; n_tup_upd includes HOT and newpage
// updates, and the counters count attempted work, rolled back included),
// pg_stat_user_indexes (index reads; PostgreSQL keeps no per-index insert
// counter: leaf inserts come from the WAL, or are derived) and
// pg_statio_user_tables/_indexes (shared-buffer hits and reads: exact per
// relation but every session's accesses, and a buffer access is not a page
// written: pg_stat_io has the writes) give per relation.
//
// Rows are keyed by oid and joined to the catalog's objects here, so the
// names cross the wire once a snapshot, and one statement reads the four
// views (each a query of its own cost more than the rest of a snapshot of
// 10,000 indexes).
type PgStatRelations struct{}

func (PgStatRelations) Name() string                   { return "pg_stat_relations" }
func (PgStatRelations) Supports(dialects.Server) error { return nil }

func (PgStatRelations) CollectObjects(ctx context.Context, qr dialects.Querier, s dialects.Server, objs []collectors.Object) ([]collectors.Counter, error) {
	var reset string
	if err := queries.QueryRow(ctx, qr, pg.Name, "stats_reset", s.VersionNum).Scan(&reset); err != nil {
		return nil, err
	}
	reset = resetMark(reset, s)
	byOID := make(map[int64]int, len(objs))
	schemas := map[string]bool{}
	for i, o := range objs {
		if oid, err := strconv.ParseInt(o.Info["oid"], 10, 64); err == nil {
			byOID[oid] = i
			schemas[o.Schema] = true
		}
	}
	if len(byOID) == 0 {
		return nil, nil
	}
	// The catalog's schemas bound the scan; its objects bound what is kept.
	names := make([]string, 0, len(schemas))
	for n := range schemas {
		names = append(names, n)
	}
	rows, err := queries.Query(ctx, qr, pg.Name, "pg_stat_relations", s.VersionNum, names)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]collectors.Counter, 0, 6*len(byOID))
	var oid int64
	var kind string
	var v [13]sql.NullInt64
	dest := []any{&oid, &kind}
	for i := range v {
		dest = append(dest, &v[i])
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		i, ok := byOID[oid]
		if !ok {
			continue // out of scope, or created since the catalog was read
		}
		o := &objs[i]
		obj, id := o.FQN(), o.Info["oid"]
		add := func(n sql.NullInt64, metric *result.Info, source string) {
			if n.Valid {
				c := exact(o.Level, obj, metric, float64(n.Int64), source, id)
				c.Reset = reset
				out = append(out, c)
			}
		}
		add(v[0], result.RowsInserted, "pg_stat_user_tables.n_tup_ins")
		add(v[1], result.RowsUpdated, "pg_stat_user_tables.n_tup_upd")
		add(v[2], result.HotUpdates, "pg_stat_user_tables.n_tup_hot_upd")
		add(v[3], result.RowsDeleted, "pg_stat_user_tables.n_tup_del")
		add(v[4], result.NewpageUpdates, "pg_stat_user_tables.n_tup_newpage_upd")
		add(v[5], result.AutovacuumRuns, "pg_stat_user_tables.autovacuum_count")
		add(v[6], result.AutoanalyzeRuns, "pg_stat_user_tables.autoanalyze_count")
		add(v[7], result.VacuumRuns, "pg_stat_user_tables.vacuum_count")
		if o.Level == collectors.Index {
			add(v[8], result.Scans, "pg_stat_user_indexes.idx_scan")
			add(v[9], result.TuplesRead, "pg_stat_user_indexes.idx_tup_read")
		} else {
			add(v[8], result.SeqScans, "pg_stat_user_tables.seq_scan")
			add(v[9], result.SeqTuplesRead, "pg_stat_user_tables.seq_tup_read")
		}
		add(v[10], result.TuplesFetched, "pg_stat_user_indexes.idx_tup_fetch")
		if o.Level == collectors.Index {
			add(v[11], result.BufferHits, "pg_statio_user_indexes.idx_blks_hit (every session's accesses)")
			add(v[12], result.BufferReads, "pg_statio_user_indexes.idx_blks_read (every session's accesses)")
		} else {
			add(v[11], result.BufferHits, "pg_statio_user_tables.heap_blks_hit (every session's accesses)")
			add(v[12], result.BufferReads, "pg_statio_user_tables.heap_blks_read (every session's accesses)")
		}
	}
	return out, rows.Err()
}
