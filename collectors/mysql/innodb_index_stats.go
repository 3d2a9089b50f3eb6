package mysql

import (
	"context"
	"fmt"
	"strings"

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
	// A partitioned table's statistics are kept per partition (t#P#p0,
	// t#P#p0#SP#s0): the table's index is the sum of its partitions'.
	type key struct{ schema, table, index, stat string }
	type acc struct {
		v       float64
		updated string
		parts   int
	}
	var order []key
	sums := map[key]*acc{}
	for rows.Next() {
		var schema, table, index, stat, updated string
		var v float64
		if err := rows.Scan(&schema, &table, &index, &stat, &v, &updated); err != nil {
			return nil, err
		}
		table = PartitionedTable(table)
		if !sc.InScope(schema, table) {
			continue
		}
		k := key{schema, table, index, stat}
		a := sums[k]
		if a == nil {
			a = &acc{}
			sums[k] = a
			order = append(order, k)
		}
		a.v += v
		a.parts++
		if updated > a.updated {
			a.updated = updated
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var out []collectors.Counter
	for _, k := range order {
		a := sums[k]
		name := k.index
		if k.index == "PRIMARY" || k.index == genClustIndex {
			name = k.table + "." + k.index
		}
		metric := map[string]*result.Info{"n_leaf_pages": result.LeafPages, "size": result.SizePages}[k.stat]
		source := "mysql.innodb_index_stats " + k.stat + " (persistent statistics)"
		if a.parts > 1 {
			source = fmt.Sprintf("mysql.innodb_index_stats %s summed over the table's %d partitions (persistent statistics)", k.stat, a.parts)
		}
		c := collectors.NewCounter(collectors.Index, collectors.FQN(k.schema, name), metric, a.v, result.Approx, source, "")
		c.Gauge = true
		c.Note = "as of the last statistics recalculation (" + a.updated + "); automatic after ~10% of the rows changed, or ANALYZE TABLE"
		out = append(out, c)
	}
	return out, nil
}

// PartitionedTable is the table an InnoDB name belongs to: InnoDB names a
// partition's data t#P#p0 (t#p#p0 on a case-insensitive file system, and
// t#P#p0#SP#s0 for a subpartition), which is a part of table t.
func PartitionedTable(name string) string {
	if i := strings.Index(strings.ToUpper(name), "#P#"); i > 0 {
		return name[:i]
	}
	return name
}
