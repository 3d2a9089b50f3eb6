package mysql

import (
	"context"
	"fmt"
	"strings"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/queries"
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
	unique, nullable            bool
	cols                        []idxCol
}

// genClustIndex is the clustered index InnoDB makes for a table with neither
// a PRIMARY KEY nor a UNIQUE index whose columns are all NOT NULL: keyed on a
// hidden 6-byte row id (DB_ROW_ID), and absent from
// INFORMATION_SCHEMA.STATISTICS (https://mariadb.com/kb/en/innodb-limitations/,
// https://dev.mysql.com/doc/refman/8.0/en/innodb-index-types.html).
const genClustIndex = "GEN_CLUST_INDEX"

func (Statistics) objects(ctx context.Context, qr dialects.Querier, s dialects.Server, sc collectors.Scope) ([]collectors.Object, error) {
	var out []collectors.Object
	type tableKey struct{ schema, table string }
	var innodb []tableKey
	rows, err := queries.Query(ctx, qr, my.Name, "tables", s.VersionNum, schemaArgs(sc)...)
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
		if strings.EqualFold(engine, "InnoDB") {
			innodb = append(innodb, tableKey{schema, name})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}

	rows, err = queries.Query(ctx, qr, my.Name, "statistics", s.VersionNum, schemaArgs(sc)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var defs []*idxDef
	byKey := map[string]*idxDef{}
	for rows.Next() {
		var schema, table, name, col, typ, nullable string
		var seq, prefix, nonUnique int64
		if err := rows.Scan(&schema, &table, &name, &seq, &col, &prefix, &nonUnique, &typ, &nullable); err != nil {
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
		d.nullable = d.nullable || nullable == "YES"
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// A table InnoDB clusters on its hidden row id gets that index named, so
	// its figures (innodb_index_stats, derived writes) belong to the table.
	clustered := map[tableKey]bool{}
	for _, d := range defs {
		if d.name == "PRIMARY" || (d.unique && !d.nullable) {
			clustered[tableKey{d.schema, d.table}] = true
		}
	}
	for _, t := range innodb {
		if !clustered[t] {
			defs = append(defs, &idxDef{schema: t.schema, table: t.table, name: genClustIndex, method: "btree", unique: true,
				cols: []idxCol{{name: "db_row_id"}}})
		}
	}
	seen := map[string]int{}
	for _, d := range defs {
		seen[d.schema+"\x00"+d.name]++
	}
	for _, d := range defs {
		name := d.name
		if d.name == "PRIMARY" || d.name == genClustIndex || seen[d.schema+"\x00"+d.name] > 1 {
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
		switch d.name {
		case "PRIMARY":
			info["primary"] = "true"
			info["clustered"] = "true"
		case genClustIndex:
			// The clustered index for the InnoDB rules: its key, the row id,
			// never changes, so updates change its records in place.
			info["primary"] = "true"
			info["clustered"] = "true"
			info["hidden"] = "true"
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
