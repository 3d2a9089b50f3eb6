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
// definition a deparse (about 25-30 µs each: a third of a second for 10,000
// indexes, more than the rest of a snapshot), so both are read for at most
// SizeLimit relations; a wider scope says so and how to narrow it.
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
	type row struct {
		schema, name, am        string
		index, partial, unique  bool
		filenode, oid, table    int64
		toastNode, toastIdxNode int64
	}
	all := make([]row, 0, 1024)
	tables := map[int64]string{}
	var kind string
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.schema, &r.name, &kind, &r.table, &r.filenode, &r.oid, &r.am, &r.partial, &r.unique, &r.toastNode, &r.toastIdxNode); err != nil {
			return nil, err
		}
		r.index = kind == "i" || kind == "I"
		if !r.index {
			tables[r.oid] = r.name
		}
		all = append(all, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]pgRel, 0, len(all))
	for _, r := range all {
		o := collectors.Object{Schema: r.schema, Name: r.name, ID: strconv.FormatInt(r.filenode, 10), Info: map[string]string{"oid": strconv.FormatInt(r.oid, 10)}}
		if r.index {
			table := tables[r.table]
			if !sc.InScope(r.schema, table) {
				continue
			}
			o.Level, o.Table = collectors.Index, table
			o.Info["method"] = r.am
			if r.partial {
				o.Info["partial"] = "true"
			}
			if r.unique {
				o.Info["unique"] = "true"
			}
		} else {
			if !sc.InScope(r.schema, r.name) {
				continue
			}
			o.Level = collectors.Table
			if r.toastNode != 0 {
				// TOAST writes belong to the table that owns them.
				o.Info["toast_filenodes"] = fmt.Sprintf("%d,%d", r.toastNode, r.toastIdxNode)
			}
		}
		out = append(out, pgRel{obj: o, oid: r.oid})
	}
	return out, nil
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
