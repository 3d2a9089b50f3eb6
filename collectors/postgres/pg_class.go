package postgres

import (
	"context"
	"fmt"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
)

// PgClass lists the tables and indexes in scope with what the other
// collectors need to know of them (relfilenode for the WAL, access method and
// predicate for derived leaf inserts), and reads their sizes.
type PgClass struct{}

func (PgClass) Name() string                   { return "pg_class" }
func (PgClass) Supports(dialects.Server) error { return nil }

type pgRel struct {
	obj  collectors.Object
	size float64
	oid  int64
}

func (PgClass) rels(ctx context.Context, qr dialects.Querier, s dialects.Server, sc collectors.Scope) ([]pgRel, error) {
	rows, err := qr.QueryContext(ctx, q("pg_class", s), schemaArg(sc))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []pgRel
	for rows.Next() {
		var schema, name, kind, table, am, def string
		var filenode, oid, size, toastOID, toastNode, toastIdxNode int64
		var partial, unique bool
		if err := rows.Scan(&schema, &name, &kind, &table, &filenode, &oid, &am, &partial, &unique, &def, &size, &toastOID, &toastNode, &toastIdxNode); err != nil {
			return nil, err
		}
		o := collectors.Object{Schema: schema, Name: name, ID: fmt.Sprint(filenode), Info: map[string]string{"oid": fmt.Sprint(oid)}}
		if kind == "i" || kind == "I" {
			if !sc.InScope(schema, table) {
				continue
			}
			o.Level, o.Table = collectors.Index, table
			o.Info["method"] = am
			o.Info["definition"] = def
			if partial {
				o.Info["partial"] = "true"
			}
			if unique {
				o.Info["unique"] = "true"
			}
		} else {
			if !sc.InScope(schema, name) {
				continue
			}
			o.Level = collectors.Table
			if toastNode != 0 {
				// TOAST writes belong to the table that owns them.
				o.Info["toast_filenodes"] = fmt.Sprintf("%d,%d", toastNode, toastIdxNode)
			}
		}
		out = append(out, pgRel{obj: o, size: float64(size), oid: oid})
	}
	return out, rows.Err()
}

// Catalog lists the objects and reads their sizes in one pass.
func (p PgClass) Catalog(ctx context.Context, qr dialects.Querier, s dialects.Server, sc collectors.Scope) ([]collectors.Object, []collectors.Counter, error) {
	rels, err := p.rels(ctx, qr, s, sc)
	if err != nil {
		return nil, nil, err
	}
	objs := make([]collectors.Object, len(rels))
	cs := make([]collectors.Counter, len(rels))
	for i, r := range rels {
		objs[i] = r.obj
		cs[i] = exact(r.obj.Level, r.obj.FQN(), "size_bytes", r.size, "pg_relation_size()", r.obj.ID)
		cs[i].Gauge = true
	}
	return objs, cs, nil
}

// Collect reads the sizes alone; snapshots use Catalog.
func (p PgClass) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, sc collectors.Scope) ([]collectors.Counter, error) {
	_, cs, err := p.Catalog(ctx, qr, s, sc)
	return cs, err
}
