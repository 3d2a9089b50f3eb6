package advise

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// ReadOriginal reads, on the user's database and read only, each index's
// scans since the statistics reset and the constraint it backs, by
// schema.index.
func ReadOriginal(ctx context.Context, db *sql.DB, s dialects.Server) (map[string]Original, error) {
	text, err := queries.Get(s.Dialect, "advise_index_usage", s.VersionNum)
	if err != nil {
		return nil, fmt.Errorf("not on %s: %w", s, err)
	}
	rows, err := db.QueryContext(ctx, text)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]Original{}
	for rows.Next() {
		var schema, name, con string
		var o Original
		if err := rows.Scan(&schema, &name, &o.Scans, &con); err != nil {
			return nil, err
		}
		o.Constraint = con
		out[schema+"."+name] = o
	}
	return out, rows.Err()
}
