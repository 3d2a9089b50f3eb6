package postgres

import (
	"context"
	"fmt"
	"strconv"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// PgClass lists the tables and indexes in scope with what the other
// collectors need to know of them (relfilenode for the WAL, access method and
// predicate for derived leaf inserts), and reads their sizes.
//
// A size costs the server a file-system call per relation and an index
// definition a deparse (on a catalog of many indexes more than the rest of
// a snapshot, measured with make bench, docs/performance.md), so both are
// read for at most SizeLimit relations; a wider scope says so and how to
// narrow it.
type PgClass struct{}

// SizeLimit is the most relations whose sizes a snapshot reads.
const SizeLimit = 2000

func (PgClass) Name() string                   { return "pg_class" }
func (PgClass) Supports(dialects.Server) error { return nil }

type pgRel struct {
	obj collectors.Object
	oid int64
}

func (PgClass) rels(ctx context.Context, qr dialects.Querier, s dialects.Server, sc collectors.Scope) ([]pgRel, error) {
	rows, err := queries.Query(ctx, qr, pg.Name, "pg_class", s.VersionNum, schemaArg(sc))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	all := make([]catRow, 0, 1024)
	var kind string
	for rows.Next() {
		var r catRow
		if err := rows.Scan(&r.schema, &r.name, &kind, &r.table, &r.filenode, &r.oid, &r.am, &r.partial, &r.unique,
			&r.toastOID, &r.toastNode, &r.toastIdxOID, &r.toastIdxNode, &r.parent); err != nil {
			return nil, err
		}
		r.index = kind == "i" || kind == "I"
		r.partitioned = kind == "p" || kind == "I"
		all = append(all, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return catalogObjects(all, sc), nil
}

// catRow is one relation of the pg_class query.
type catRow struct {
	schema, name, am                  string
	index, partial, unique            bool
	partitioned                       bool // relkind p or I: no storage, its partitions hold its rows
	filenode, oid, table              int64
	toastOID, toastNode               int64
	toastIdxOID, toastIdxNode, parent int64
}

// catalogObjects turns the catalog's relations into the objects in scope.
// A partition is in scope when it or a partitioned table above it is (a
// scope that names the table holds what it is written through), an index
// when its table is. Each partition and partition index says which
// partitioned table or index it is part of (Info "part_of"), whose figures
// are then its partitions' sum (collectors.DeriveParts). A table's TOAST
// table and TOAST index are objects of their own, named after the table:
// the TOAST table is part of the table (its figures include the TOAST
// table's, as a table's row is stored in both), the TOAST index is one more
// index of the table, so the table's index entries include it.
func catalogObjects(all []catRow, sc collectors.Scope) []pgRel {
	byOID := make(map[int64]*catRow, len(all))
	for i := range all {
		byOID[all[i].oid] = &all[i]
	}
	memo := map[int64]bool{}
	var inScope func(r *catRow, depth int) bool
	inScope = func(r *catRow, depth int) bool {
		if v, ok := memo[r.oid]; ok {
			return v
		}
		v := sc.InScope(r.schema, r.name)
		if !v && r.parent != 0 && depth < 64 {
			if p := byOID[r.parent]; p != nil {
				v = inScope(p, depth+1)
			}
		}
		memo[r.oid] = v
		return v
	}
	fqn := func(r *catRow) string { return r.schema + "." + r.name }
	out := make([]pgRel, 0, len(all))
	for i := range all {
		r := &all[i]
		o := collectors.Object{Schema: r.schema, Name: r.name, ID: strconv.FormatInt(r.filenode, 10), Info: map[string]string{"oid": strconv.FormatInt(r.oid, 10)}}
		if r.partitioned {
			o.Info["partitioned"] = "true"
		}
		if p := byOID[r.parent]; r.parent != 0 && p != nil {
			o.Info["part_of"] = fqn(p)
		}
		if r.index {
			t := byOID[r.table]
			if t == nil || !inScope(t, 0) {
				continue
			}
			o.Level, o.Table = collectors.Index, t.name
			o.Info["method"] = r.am
			if r.partial {
				o.Info["partial"] = "true"
			}
			if r.unique {
				o.Info["unique"] = "true"
			}
			out = append(out, pgRel{obj: o, oid: r.oid})
			continue
		}
		if !inScope(r, 0) {
			continue
		}
		o.Level = collectors.Table
		out = append(out, pgRel{obj: o, oid: r.oid})
		if r.toastOID == 0 {
			continue
		}
		out = append(out, pgRel{oid: r.toastOID, obj: collectors.Object{Level: collectors.Table, Schema: r.schema, Name: r.name + " (TOAST)",
			ID: strconv.FormatInt(r.toastNode, 10), Info: map[string]string{"oid": strconv.FormatInt(r.toastOID, 10), "toast": "table", "part_of": fqn(r)}}})
		if r.toastIdxOID != 0 {
			out = append(out, pgRel{oid: r.toastIdxOID, obj: collectors.Object{Level: collectors.Index, Schema: r.schema, Name: r.name + " (TOAST index)", Table: r.name,
				ID: strconv.FormatInt(r.toastIdxNode, 10), Info: map[string]string{"oid": strconv.FormatInt(r.toastIdxOID, 10), "toast": "index", "method": "btree", "unique": "true"}}})
		}
	}
	return out
}

// Catalog lists the objects and reads their sizes.
func (p PgClass) Catalog(ctx context.Context, qr dialects.Querier, s dialects.Server, sc collectors.Scope) ([]collectors.Object, []collectors.Counter, error) {
	rels, err := p.rels(ctx, qr, s, sc)
	if err != nil {
		return nil, nil, err
	}
	objs := make([]collectors.Object, len(rels))
	for i, r := range rels {
		objs[i] = r.obj
	}
	if len(rels) > SizeLimit {
		return objs, nil, &collectors.CatalogNote{Reason: fmt.Sprintf("size_bytes and index definitions not read: %d tables and indexes are in scope, and each costs the server a file-system call or a deparse (more than %d would slow every snapshot); narrow the scope with --schema or --table", len(rels), SizeLimit)}
	}
	oids := make([]int64, len(rels))
	for i, r := range rels {
		oids[i] = r.oid
	}
	rows, err := queries.Query(ctx, qr, pg.Name, "relation_sizes", s.VersionNum, oids)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	size := make(map[int64]float64, len(rels))
	def := map[int64]string{}
	for rows.Next() {
		var oid, n int64
		var d string
		if err := rows.Scan(&oid, &n, &d); err != nil {
			return nil, nil, err
		}
		size[oid] = float64(n)
		if d != "" {
			def[oid] = d
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	cs := make([]collectors.Counter, 0, len(rels))
	for i, r := range rels {
		if d := def[r.oid]; d != "" && r.obj.Level == collectors.Index {
			objs[i].Info["definition"] = d
		}
		n, ok := size[r.oid]
		if !ok {
			continue // dropped since the catalog was read
		}
		c := exact(r.obj.Level, r.obj.FQN(), result.SizeBytes, n, "pg_relation_size()", r.obj.ID)
		c.Gauge = true
		cs = append(cs, c)
	}
	return objs, cs, nil
}
