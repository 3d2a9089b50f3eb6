package mysql

import (
	"context"
	"fmt"
	"strings"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
)

// Statistics lists the tables (information_schema.TABLES) and indexes
// (information_schema.STATISTICS) in scope with what the deriver needs: the
// key columns of each index in order, prefix lengths, and which index is the
// clustered PRIMARY key. It reads no counters: InnoDB keeps none per index.
//
// Index names are unique only per table in MySQL, and every table's clustered
// index is called PRIMARY; such names are qualified with their table
// ("offline_user_session.PRIMARY") so that "schema.name" stays unique.
// Info["index_name"] keeps the name as the server reports it.
type Statistics struct{}

func (Statistics) Name() string                   { return "statistics" }
func (Statistics) Supports(dialects.Server) error { return nil }

// Collect reads nothing: the catalog is all this source gives (see Catalog).
func (Statistics) Collect(context.Context, dialects.Querier, dialects.Server, collectors.Scope) ([]collectors.Counter, error) {
	return nil, nil
}

// Catalog lists the tables and indexes in scope; it reads no counters.
func (c Statistics) Catalog(ctx context.Context, qr dialects.Querier, s dialects.Server, sc collectors.Scope) ([]collectors.Object, []collectors.Counter, error) {
	objs, err := c.objects(ctx, qr, s, sc)
	return objs, nil, err
}

type idxCol struct {
	name   string
	prefix int64
}

type idxDef struct {
	schema, table, name, method string
	unique                      bool
	cols                        []idxCol
}

func (Statistics) objects(ctx context.Context, qr dialects.Querier, s dialects.Server, sc collectors.Scope) ([]collectors.Object, error) {
	var out []collectors.Object
	rows, err := qr.QueryContext(ctx, q("tables", s), schemaArgs(sc)...)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var schema, name, engine, created string
		if err := rows.Scan(&schema, &name, &engine, &created); err != nil {
			rows.Close()
			return nil, err
		}
		if !sc.InScope(schema, name) {
			continue
		}
		out = append(out, collectors.Object{Level: collectors.Table, Schema: schema, Name: name,
			Info: map[string]string{"engine": strings.ToLower(engine), "created": created}})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}

	rows, err = qr.QueryContext(ctx, q("statistics", s), schemaArgs(sc)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var defs []*idxDef
	byKey := map[string]*idxDef{}
	for rows.Next() {
		var schema, table, name, col, typ string
		var seq, prefix, nonUnique int64
		if err := rows.Scan(&schema, &table, &name, &seq, &col, &prefix, &nonUnique, &typ); err != nil {
			return nil, err
		}
		if !sc.InScope(schema, table) {
			continue
		}
		k := schema + "\x00" + table + "\x00" + name
		d := byKey[k]
		if d == nil {
			d = &idxDef{schema: schema, table: table, name: name, method: strings.ToLower(typ), unique: nonUnique == 0}
			byKey[k] = d
			defs = append(defs, d)
		}
		d.cols = append(d.cols, idxCol{name: strings.ToLower(col), prefix: prefix})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	seen := map[string]int{}
	for _, d := range defs {
		seen[d.schema+"\x00"+d.name]++
	}
	for _, d := range defs {
		name := d.name
		if d.name == "PRIMARY" || seen[d.schema+"\x00"+d.name] > 1 {
			name = d.table + "." + d.name
		}
		var cols, def []string
		for _, c := range d.cols {
			cols = append(cols, c.name)
			if c.prefix > 0 {
				def = append(def, fmt.Sprintf("%s(%d)", c.name, c.prefix))
			} else {
				def = append(def, c.name)
			}
		}
		info := map[string]string{
			"index_name": d.name,
			"columns":    strings.Join(cols, ","),
			"method":     d.method,
			"definition": "(" + strings.Join(def, ", ") + ")",
		}
		if d.name == "PRIMARY" {
			info["primary"] = "true"
			info["clustered"] = "true"
		}
		if d.unique {
			info["unique"] = "true"
		}
		var prefixed []string
		for _, c := range d.cols {
			if c.prefix > 0 {
				prefixed = append(prefixed, fmt.Sprintf("%s:%d", c.name, c.prefix))
			}
		}
		if len(prefixed) > 0 {
			info["prefix"] = strings.Join(prefixed, ",")
		}
		out = append(out, collectors.Object{Level: collectors.Index, Schema: d.schema, Name: name, Table: d.table, Info: info})
	}
	return out, nil
}
