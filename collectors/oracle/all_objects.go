package oracle

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	ora "github.com/writeamp/writeamp/dialects/oracle"
	"github.com/writeamp/writeamp/queries"
)

// AllObjects lists the tables and indexes in scope (ALL_OBJECTS with
// ALL_INDEXES for an index's table and type). It reads no counters. ALL_
// views show what the login may see, which covers the workload's own schema.
type AllObjects struct{}

func (AllObjects) Name() string                     { return "all_objects" }
func (AllObjects) Supports(s dialects.Server) error { return unsupportedVersion(s) }

// Catalog lists the tables and indexes in scope; it reads no counters.
func (AllObjects) Catalog(ctx context.Context, qr dialects.Querier, s dialects.Server, sc collectors.Scope) ([]collectors.Object, []collectors.Counter, error) {
	owners := ownerArg(sc)
	rows, err := queries.Query(ctx, qr, ora.Name, "all_objects", s.VersionNum, owners, owners)
	if err != nil {
		return nil, nil, ora.AsPrivilegeError(err, s, "all_objects")
	}
	defer rows.Close()
	var out []collectors.Object
	for rows.Next() {
		var owner, name, typ string
		var tableOwner, table, indexType, uniqueness sql.NullString
		var dataObj sql.NullInt64
		if err := rows.Scan(&owner, &name, &typ, &tableOwner, &table, &indexType, &uniqueness, &dataObj); err != nil {
			return nil, nil, err
		}
		o := collectors.Object{Schema: owner, Name: name, Info: map[string]string{}}
		if dataObj.Valid {
			o.ID = fmt.Sprint(dataObj.Int64) // partitioned objects have none: their segments do
		}
		switch typ {
		case "TABLE":
			if !sc.InScope(owner, name) {
				continue
			}
			o.Level = collectors.Table
		case "INDEX":
			// Scoped by its table: an index in another schema on a table in
			// scope is the table's index all the same.
			if !table.Valid || !sc.InScope(tableOwner.String, table.String) || lobIndex(indexType.String) {
				continue
			}
			o.Level, o.Table = collectors.Index, table.String
			o.Info["type"] = strings.ToLower(indexType.String)
			o.Info["method"] = method(indexType.String)
			if uniqueness.String == "UNIQUE" {
				o.Info["unique"] = "true"
			}
		default:
			continue
		}
		out = append(out, o)
	}
	return out, nil, rows.Err()
}

// lobIndex reports a LOB index (SYS_IL...): Oracle's index of a LOB
// column's chunks, created with the column, not an index anyone declared.
func lobIndex(indexType string) bool { return strings.EqualFold(indexType, "LOB") }

// method maps ALL_INDEXES.INDEX_TYPE to the vocabulary's access methods.
// Oracle has no filtered (partial) indexes, so "partial" is never set.
func method(indexType string) string {
	switch strings.ToUpper(indexType) {
	case "NORMAL", "NORMAL/REV", "FUNCTION-BASED NORMAL", "IOT - TOP":
		return "btree"
	case "BITMAP", "FUNCTION-BASED BITMAP":
		return "bitmap"
	default:
		return strings.ToLower(indexType)
	}
}
