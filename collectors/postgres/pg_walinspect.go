package postgres

import (
	"context"
	"database/sql"
	"strings"

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
	query := func(name string) (*sql.Rows, error) {
		text, err := q(name, s)
		if err != nil {
			return nil, err
		}
		return qr.QueryContext(ctx, strings.ReplaceAll(text, "{{walinspect}}", pg.QuoteIdent(schema)), w.start, w.end, w.dboid, nodes)
	}
	rows, err := query("pg_walinspect")
	if err != nil {
		return nil, nil, "", walinspectErr(s, err)
	}
	defer rows.Close()
	var out []walRow
	for rows.Next() {
		var r walRow
		if err := rows.Scan(&r.db, &r.node, &r.xact, &r.recs, &r.bytes, &r.fpiBytes, &r.fpis, &r.leafIns, &r.leafSplit, &r.newpage); err != nil {
			return nil, nil, "", err
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, "", err
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
	if w.ops != nil {
		if err := walinspectXacts(query, &w); err != nil {
			return nil, nil, "", walinspectErr(s, err)
		}
	}
	src := "pg_walinspect pg_get_wal_records_info block_ref"
	if s.Has(pg.CapWalBlockInfo) {
		src = "pg_walinspect pg_get_wal_block_info"
	}
	return out, pages, src, nil
}

// walinspectXacts splits the window's in-scope records by the workload's
// transactions, as the decoder does while it reads.
func walinspectXacts(query func(name string) (*sql.Rows, error), w *walWindow) error {
	rows, err := query("pg_walinspect_xacts")
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var xid, node int64
		var r walRow
		if err := rows.Scan(&xid, &node, &r.recs, &r.bytes, &r.fpiBytes, &r.fpis, &r.leafIns); err != nil {
			return err
		}
		w.attribute(uint32(xid), w.rels[node], &r)
	}
	return rows.Err()
}

func walinspectErr(s dialects.Server, err error) error {
	if strings.Contains(err.Error(), "permission denied") {
		return &dialects.PrivilegeError{Privilege: "EXECUTE on pg_walinspect functions", Grant: "GRANT pg_read_server_files TO " + pg.QuoteIdent(s.User), Err: err}
	}
	return err
}
