package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
)

// walinspectWindow reads the window through pg_walinspect: per relation of
// each record's first block and transaction class, and the distinct pages
// each scoped relation's records changed.
func walinspectWindow(ctx context.Context, qr dialects.Querier, s dialects.Server, w walWindow) ([]walRow, map[int64]float64, string, error) {
	nodes := make([]int64, 0, len(w.rels))
	for n := range w.rels {
		nodes = append(nodes, n)
	}
	schema := s.Prop(pg.PropWalinspectSchema)
	if schema == "" {
		schema = "public"
	}
	query := func(name string, args ...any) (*sql.Rows, error) {
		text, err := collectors.SQL(pg.Name, name, s)
		if err != nil {
			return nil, err
		}
		return qr.QueryContext(ctx, strings.ReplaceAll(text, "{{walinspect}}", pg.QuoteIdent(schema)), append([]any{w.start, w.end, w.dboid, nodes}, args...)...)
	}
	// One read of the window gives the relations' rows and, for the split
	// by operation, each transaction's.
	rows, err := query("pg_walinspect", w.ops != nil)
	if err != nil {
		return nil, nil, "", walinspectErr(s, err)
	}
	defer rows.Close()
	var out []walRow
	for rows.Next() {
		var kind string
		var xid int64
		var r walRow
		if err := rows.Scan(&kind, &xid, &r.db, &r.node, &r.xact, &r.recs, &r.bytes, &r.fpiBytes, &r.fpis, &r.leafIns, &r.leafSplit, &r.newpage); err != nil {
			return nil, nil, "", err
		}
		switch kind {
		case "rel":
			out = append(out, r)
		case "xact":
			w.attribute(uint32(xid), w.rels[r.node], &r)
		default:
			return nil, nil, "", fmt.Errorf("pg_walinspect: a row of kind %q", kind)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, "", walinspectErr(s, err)
	}
	pages := map[int64]float64{}
	prow, err := query("pg_walinspect_pages")
	if err != nil {
		return nil, nil, "", walinspectErr(s, err)
	}
	defer prow.Close()
	for prow.Next() {
		var node int64
		var n float64
		if err := prow.Scan(&node, &n); err != nil {
			return nil, nil, "", err
		}
		pages[node] = n
	}
	if err := prow.Err(); err != nil {
		return nil, nil, "", err
	}
	src := "pg_walinspect pg_get_wal_records_info block_ref"
	if s.Has(pg.CapWalBlockInfo) {
		src = "pg_walinspect pg_get_wal_block_info"
	}
	return out, pages, src, nil
}

func walinspectErr(s dialects.Server, err error) error {
	if strings.Contains(err.Error(), "permission denied") {
		return &dialects.PrivilegeError{Privilege: "EXECUTE on pg_walinspect functions", Grant: "GRANT pg_read_server_files TO " + pg.QuoteIdent(s.User), Err: err}
	}
	return err
}
