package postgres

import (
	"context"
	"database/sql"
	"strconv"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
)

// PgStatUserTables reads row counts per table. n_tup_upd includes HOT and
// newpage updates; the counters count attempted work, rolled back included.
type PgStatUserTables struct{}

func (PgStatUserTables) Name() string                   { return "pg_stat_user_tables" }
func (PgStatUserTables) Supports(dialects.Server) error { return nil }

func (PgStatUserTables) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, sc collectors.Scope) ([]collectors.Counter, error) {
	rows, err := qr.QueryContext(ctx, q("pg_stat_user_tables", s), schemaArg(sc))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]collectors.Counter, 0, 8*256)
	for rows.Next() {
		var schema, name string
		var relid, ins, upd, hot, del, av, aa, vac int64
		var newpage sql.NullInt64
		var reset string
		if err := rows.Scan(&schema, &name, &relid, &ins, &upd, &hot, &del, &newpage, &av, &aa, &vac, &reset); err != nil {
			return nil, err
		}
		reset = resetMark(reset, s)
		if !sc.InScope(schema, name) {
			continue
		}
		obj, id := fqn(schema, name), strconv.FormatInt(relid, 10)
		add := func(metric string, v int64, col string) {
			c := exact(collectors.Table, obj, metric, float64(v), "pg_stat_user_tables."+col, id)
			c.Reset = reset
			out = append(out, c)
		}
		add("rows_inserted", ins, "n_tup_ins")
		add("rows_updated", upd, "n_tup_upd")
		add("hot_updates", hot, "n_tup_hot_upd")
		add("rows_deleted", del, "n_tup_del")
		if newpage.Valid {
			add("newpage_updates", newpage.Int64, "n_tup_newpage_upd")
		}
		add("autovacuum_runs", av, "autovacuum_count")
		add("autoanalyze_runs", aa, "autoanalyze_count")
		add("vacuum_runs", vac, "vacuum_count")
	}
	return out, rows.Err()
}
