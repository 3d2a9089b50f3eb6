package sqlserver

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	ms "github.com/writeamp/writeamp/dialects/sqlserver"
	"github.com/writeamp/writeamp/queries"
)

// SysIndexes lists the tables and indexes in scope from the catalog, with
// what reports show of them (method, filtered or not, a definition built from
// the key columns). It reads no counters; catalog views need no permission
// beyond seeing the objects.
type SysIndexes struct{}

func (SysIndexes) Name() string                     { return "sys_indexes" }
func (SysIndexes) Supports(s dialects.Server) error { return unsupportedVersion(s) }

// Catalog lists the tables and indexes in scope; it reads no counters.
func (SysIndexes) Catalog(ctx context.Context, qr dialects.Querier, s dialects.Server, sc collectors.Scope) ([]collectors.Object, []collectors.Counter, error) {
	rows, err := queries.Query(ctx, qr, ms.Name, "sys_indexes", s.VersionNum)
	if err != nil {
		return nil, nil, ms.AsPrivilegeError(err, s, ms.DatabaseScope)
	}
	defer rows.Close()
	var out []collectors.Object
	for rows.Next() {
		var schema, table, typ string
		var index, filter, cols sql.NullString
		var objectID int64
		var indexID int
		var unique, filtered sql.NullBool
		if err := rows.Scan(&schema, &table, &index, &objectID, &indexID, &typ, &unique, &filtered, &filter, &cols); err != nil {
			return nil, nil, err
		}
		if !sc.InScope(schema, table) {
			continue
		}
		if indexID <= 1 {
			// The heap or the clustered index holds the rows: one table entry.
			out = append(out, collectors.Object{Level: collectors.Table, Schema: schema, Name: table,
				ID: fmt.Sprint(objectID), Info: map[string]string{"storage": strings.ToLower(typ)}})
		}
		if indexID == 0 || !index.Valid {
			continue
		}
		o := collectors.Object{Level: collectors.Index, Schema: schema, Name: index.String, Table: table,
			ID: fmt.Sprintf("%d/%d", objectID, indexID), Info: map[string]string{"type": strings.ToLower(typ)}}
		o.Info["method"] = method(typ)
		if unique.Valid && unique.Bool {
			o.Info["unique"] = "true"
		}
		if filtered.Valid && filtered.Bool {
			o.Info["partial"] = "true"
			o.Info["predicate"] = filter.String
		}
		o.Info["definition"] = definition(o, schema, typ, cols.String, filter.String)
		out = append(out, o)
	}
	return out, nil, rows.Err()
}

// method maps type_desc to the vocabulary's access methods: rowstore indexes,
// clustered or not, are B-trees.
func method(typeDesc string) string {
	switch strings.ToUpper(typeDesc) {
	case "CLUSTERED", "NONCLUSTERED":
		return "btree"
	default:
		return strings.ToLower(strings.ReplaceAll(typeDesc, " ", "_"))
	}
}

func definition(o collectors.Object, schema, typ, cols, filter string) string {
	var b strings.Builder
	b.WriteString("CREATE ")
	if o.Info["unique"] == "true" {
		b.WriteString("UNIQUE ")
	}
	fmt.Fprintf(&b, "%s INDEX %s ON %s.%s (%s)", strings.ToUpper(typ), o.Name, schema, o.Table, cols)
	if filter != "" {
		b.WriteString(" WHERE " + filter)
	}
	return b.String()
}
