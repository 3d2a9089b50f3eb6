package mysql

import (
	"context"
	"fmt"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// InnodbIndexStats reads each index's leaf pages and total pages from
// InnoDB's persistent statistics (mysql.innodb_index_stats). They are the
// only per-index figures InnoDB keeps that follow index growth, so they sit
// next to the derived leaf inserts as a measured cross-check: approximate,
// because they are as of the last recalculation (automatic after about 10% of
// a table's rows changed, or ANALYZE TABLE), which may lag the window.
type InnodbIndexStats struct{}

func (InnodbIndexStats) Name() string { return "innodb_index_stats" }

func (InnodbIndexStats) Supports(s dialects.Server) error {
	if !s.Has(my.CapIndexStats) {
		return &dialects.PrivilegeError{Privilege: "SELECT on mysql.innodb_index_stats",
			Grant: "GRANT SELECT ON mysql.innodb_index_stats TO " + s.Prop(my.PropHostUser),
			Err:   fmt.Errorf("%w: the leaf-page cross-check reads InnoDB's persistent statistics", dialects.ErrUnsupported)}
	}
	return nil
}

func (InnodbIndexStats) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, sc collectors.Scope) ([]collectors.Counter, error) {
	rows, err := queries.Query(ctx, qr, my.Name, "innodb_index_stats", s.VersionNum, schemaArgs(sc)...)
	if pe := my.AsPrivilegeError(err, s, "SELECT on mysql.innodb_index_stats", "GRANT SELECT ON mysql.innodb_index_stats TO "+s.Prop(my.PropHostUser)); pe != nil {
		return nil, pe
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	// PRIMARY and InnoDB's hidden GEN_CLUST_INDEX are in every table that has
	// them; the catalog qualifies them with the table (see Statistics).
	var out []collectors.Counter
	for rows.Next() {
		var schema, table, index, stat, updated string
		var v float64
		if err := rows.Scan(&schema, &table, &index, &stat, &v, &updated); err != nil {
			return nil, err
		}
		if !sc.InScope(schema, table) {
			continue
		}
		name := index
		if index == "PRIMARY" || index == genClustIndex {
			name = table + "." + index
		}
		metric := map[string]*result.Info{"n_leaf_pages": result.LeafPages, "size": result.SizePages}[stat]
		c := counter(collectors.Index, fqn(schema, name), metric, v, result.Approx,
			"mysql.innodb_index_stats "+stat+" (persistent statistics)", "")
		c.Gauge = true
		c.Note = "as of the last statistics recalculation (" + updated + "); automatic after ~10% of the rows changed, or ANALYZE TABLE"
		out = append(out, c)
	}
	return out, rows.Err()
}
