package postgres

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/result"
)

// PgWalinspect reads the WAL written between the two snapshots and counts,
// per relation, the records, bytes and full-page images, and per B-tree
// index the exact leaf inserts and leaf page splits. It also splits the
// cluster's WAL into what the scoped objects' transactions wrote and the rest
// (other relations, other databases, checkpoints, other sessions).
type PgWalinspect struct{}

func (PgWalinspect) Name() string { return "pg_walinspect" }

func (PgWalinspect) Supports(s dialects.Server) error {
	if !s.Has(pg.CapWalinspect) {
		return fmt.Errorf("%w: %s", dialects.ErrUnsupported, s.Why(pg.CapWalinspect))
	}
	if !s.Has(pg.CapPrimary) {
		return fmt.Errorf("%w: %s", dialects.ErrUnsupported, s.Why(pg.CapPrimary))
	}
	return nil
}

// walSource names the function the figures come from, per version.
func walSource(s dialects.Server) string {
	if s.Has(pg.CapWalBlockInfo) {
		return "pg_walinspect pg_get_wal_block_info"
	}
	return "pg_walinspect pg_get_wal_records_info block_ref"
}

type relKey struct {
	level collectors.Level
	obj   string
}

// relMap maps relfilenodes seen in either snapshot to the scoped object they
// belong to (TOAST to its table).
func relMap(before, after *collectors.Snapshot) map[int64]relKey {
	m := map[int64]relKey{}
	for _, snap := range []*collectors.Snapshot{before, after} {
		for _, o := range snap.Objects {
			k := relKey{o.Level, o.FQN()}
			if n, err := strconv.ParseInt(o.ID, 10, 64); err == nil && n != 0 {
				m[n] = k
			}
			for _, t := range strings.Split(o.Info["toast_filenodes"], ",") {
				if n, err := strconv.ParseInt(t, 10, 64); err == nil && n != 0 {
					m[n] = k
				}
			}
		}
	}
	return m
}

func (PgWalinspect) CollectInterval(ctx context.Context, qr dialects.Querier, s dialects.Server, before, after *collectors.Snapshot) ([]collectors.Counter, error) {
	start, end := before.Marks[MarkLSN], after.Marks[MarkLSN]
	if start == "" || end == "" {
		return nil, fmt.Errorf("no WAL positions in the snapshots")
	}
	// The records up to the end LSN must be flushed before they can be read;
	// the WAL writer does that within its delay (200 ms by default).
	for i := 0; ; i++ {
		var ahead int64
		if err := qr.QueryRowContext(ctx, q("flush_lsn", s), end).Scan(&ahead); err != nil {
			return nil, err
		}
		if ahead >= 0 {
			break
		}
		if i == 50 {
			return nil, fmt.Errorf("WAL up to %s was not flushed after 5 s", end)
		}
		time.Sleep(100 * time.Millisecond)
	}
	rels := relMap(before, after)
	nodes := make([]int64, 0, len(rels))
	for n := range rels {
		nodes = append(nodes, n)
	}
	dboid, _ := strconv.ParseInt(s.Prop(pg.PropDatabaseOID), 10, 64)
	text := strings.ReplaceAll(q("pg_walinspect", s), "{{walinspect}}", pg.QuoteIdent(walinspectSchema(s)))
	rows, err := qr.QueryContext(ctx, text, start, end, dboid, nodes)
	if err != nil {
		if strings.Contains(err.Error(), "has already been removed") {
			return nil, &collectors.LogLostError{Err: err, Why: fmt.Sprintf("the WAL from the window's start (%s) was recycled by a checkpoint before it could be read: log bytes come from the LSN difference and pg_stat_wal, per-index leaf inserts are derived from the table counters. %s", start, holdAdvice(s))}
		}
		if strings.Contains(err.Error(), "permission denied") {
			return nil, &dialects.PrivilegeError{Privilege: "EXECUTE on pg_walinspect functions", Grant: "GRANT pg_read_server_files TO " + pg.QuoteIdent(s.User), Err: err}
		}
		return nil, err
	}
	defer rows.Close()

	type agg struct{ recs, bytes, fpiBytes, fpis, leafIns, leafSplit, newpage float64 }
	perObj := map[relKey]*agg{}
	var inScope, otherRel, otherNone, allFPI agg
	otherNodes := map[int64]float64{} // this database's other relations, by WAL bytes
	for rows.Next() {
		var db, node int64
		var xact string
		var a agg
		if err := rows.Scan(&db, &node, &xact, &a.recs, &a.bytes, &a.fpiBytes, &a.fpis, &a.leafIns, &a.leafSplit, &a.newpage); err != nil {
			return nil, err
		}
		allFPI.fpiBytes += a.fpiBytes
		allFPI.fpis += a.fpis
		k, mine := rels[node]
		if db != dboid {
			mine = false
		}
		switch {
		case mine:
			t := perObj[k]
			if t == nil {
				t = &agg{}
				perObj[k] = t
			}
			t.recs += a.recs
			t.bytes += a.bytes
			t.fpiBytes += a.fpiBytes
			t.fpis += a.fpis
			t.leafIns += a.leafIns
			t.leafSplit += a.leafSplit
			t.newpage += a.newpage
			inScope.bytes += a.bytes
			inScope.recs += a.recs
		case xact == "scope":
			// Commit records and the like of transactions that wrote the scoped objects.
			inScope.bytes += a.bytes
			inScope.recs += a.recs
		case node != 0 || xact == "other":
			otherRel.bytes += a.bytes
			otherRel.recs += a.recs
			if db == dboid && node != 0 {
				otherNodes[node] += a.bytes
			}
		default:
			otherNone.bytes += a.bytes
			otherNone.recs += a.recs
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	src := walSource(s)
	iv := func(level collectors.Level, obj, metric string, v float64, source string) collectors.Counter {
		return collectors.Counter{Key: collectors.Key{Level: level, Object: obj, Metric: metric}, Value: v, Exactness: result.Exact, Source: source, Interval: true}
	}
	var out []collectors.Counter
	// Every scoped object gets figures, zero included: "no WAL" is a finding.
	seen := map[relKey]bool{}
	for _, o := range after.Objects {
		k := relKey{o.Level, o.FQN()}
		if seen[k] {
			continue
		}
		seen[k] = true
		a := perObj[k]
		if a == nil {
			a = &agg{}
		}
		out = append(out,
			iv(o.Level, k.obj, "log_bytes", a.bytes, src+": sum(record_length) of records whose first block is this relation"),
			iv(o.Level, k.obj, "log_records", a.recs, src+": records whose first block is this relation"),
			iv(o.Level, k.obj, "fpi_bytes", a.fpiBytes, src+": sum(fpi_length)"))
		if o.Level == collectors.Table {
			out = append(out, iv(o.Level, k.obj, "newpage_updates", a.newpage, src+": Heap UPDATE records with a second block (the new version went to another page)"))
		}
		if o.Level == collectors.Index && o.Info["method"] == "btree" {
			out = append(out,
				iv(o.Level, k.obj, "leaf_inserts", a.leafIns, src+": Btree INSERT_LEAF + INSERT_POST + level-0 SPLIT_L/SPLIT_R records"),
				iv(o.Level, k.obj, "leaf_page_splits", a.leafSplit, src+": Btree level-0 SPLIT_L/SPLIT_R records"))
		}
	}
	otherObjects := iv(collectors.DB, "", "log_bytes_other_objects", otherRel.bytes, src+": records on relations outside the scope (other tables, other databases, catalogs) and the commit records of the transactions that wrote them")
	otherObjects.Note = largestOthers(ctx, qr, s, otherNodes)
	out = append(out, otherObjects,
		iv(collectors.DB, "", "fpi_bytes", allFPI.fpiBytes, src+": sum(fpi_length), whole cluster"),
		iv(collectors.DB, "", "log_bytes_in_scope", inScope.bytes, src+": records on the measured objects and the other records (commits) of the transactions that wrote them"),
		iv(collectors.DB, "", "log_bytes_other", otherNone.bytes, src+": records of no relation outside any writing transaction (checkpoints, running-xacts snapshots, WAL switches)"),
	)
	return out, nil
}

func walinspectSchema(s dialects.Server) string {
	if v := s.Prop(pg.PropWalinspectSchema); v != "" {
		return v
	}
	return "public"
}

// holdAdvice says how a long window keeps its WAL next time.
func holdAdvice(s dialects.Server) string {
	if s.Has(pg.CapHoldWAL) {
		return "writeamp holds the WAL with a replication slot from `writeamp snapshot` (without --hold-wal=false) and for run/measure windows."
	}
	return "With a replication slot writeamp keeps it: " + s.Why(pg.CapHoldWAL)
}

// largestOthers names the out-of-scope relations of this database that took
// the most WAL in the window (often catalog pages pruned on access), so a
// warning about them says what they were.
func largestOthers(ctx context.Context, qr dialects.Querier, s dialects.Server, nodes map[int64]float64) string {
	type rel struct {
		node  int64
		bytes float64
	}
	var rels []rel
	for n, b := range nodes {
		rels = append(rels, rel{n, b})
	}
	sort.Slice(rels, func(i, j int) bool { return rels[i].bytes > rels[j].bytes })
	var parts []string
	for _, r := range rels[:min(3, len(rels))] {
		var name string
		if err := qr.QueryRowContext(ctx, q("relation_of_filenode", s), r.node).Scan(&name); err != nil || name == "" {
			name = fmt.Sprintf("relfilenode %d", r.node)
		}
		parts = append(parts, fmt.Sprintf("%s %.0f B", name, r.bytes))
	}
	if len(parts) == 0 {
		return ""
	}
	return "largest in this database: " + strings.Join(parts, ", ")
}
