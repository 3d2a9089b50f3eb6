package sqlserver

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	ms "github.com/writeamp/writeamp/dialects/sqlserver"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// SysDmDbIndexOperationalStats reads SQL Server's real per-index leaf counters.
// They live only while the index's metadata is cached: an eviction, a restart
// or a failover drops them to zero silently. The counter's identity (object,
// index, partition rowsets, server start) plus collectors.Diff's "went down"
// rule turn those into reported resets instead of negative deltas; an
// eviction followed by more work than before the eviction cannot be seen.
type SysDmDbIndexOperationalStats struct{}

const opStats = "sys.dm_db_index_operational_stats"

func (SysDmDbIndexOperationalStats) Name() string { return "sys_dm_db_index_operational_stats" }

func (SysDmDbIndexOperationalStats) Supports(s dialects.Server) error {
	if err := unsupportedVersion(s); err != nil {
		return err
	}
	return need(s, ms.CapViewDatabaseState, ms.DatabaseScope)
}

type opRow struct {
	schema, table, index             string
	objectID, indexID                int64
	parts                            []string
	ins, del, upd, ghost, alloc, mrg float64
	latch, latchMS, lock, lockMS     float64
}

func (SysDmDbIndexOperationalStats) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, sc collectors.Scope) ([]collectors.Counter, error) {
	rows, err := queries.Query(ctx, qr, ms.Name, "sys_dm_db_index_operational_stats", s.VersionNum)
	if err != nil {
		return nil, ms.AsPrivilegeError(err, s, ms.DatabaseScope)
	}
	defer rows.Close()
	byIndex := map[string]*opRow{}
	var order []string
	for rows.Next() {
		var schema, table string
		var index sql.NullString
		var objectID, indexID, partNo int64
		var partID sql.NullInt64
		var v [10]sql.NullInt64
		if err := rows.Scan(&schema, &table, &index, &objectID, &indexID, &partNo, &partID,
			&v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]); err != nil {
			return nil, ms.AsPrivilegeError(err, s, ms.DatabaseScope)
		}
		if !sc.InScope(schema, table) {
			continue
		}
		k := fmt.Sprintf("%d/%d", objectID, indexID)
		r := byIndex[k]
		if r == nil {
			r = &opRow{schema: schema, table: table, index: index.String, objectID: objectID, indexID: indexID}
			byIndex[k] = r
			order = append(order, k)
		}
		// A partition whose rowset is not visible (NULL partition_id) still
		// counts; its identity is its number.
		part := fmt.Sprintf("p%d", partNo)
		if partID.Valid {
			part += ":" + fmt.Sprint(partID.Int64)
		}
		r.parts = append(r.parts, part)
		f := func(i int) float64 { return float64(v[i].Int64) } // NULL (object dropped mid-read) counts as 0
		r.ins += f(0)
		r.del += f(1)
		r.upd += f(2)
		r.ghost += f(3)
		r.alloc += f(4)
		r.mrg += f(5)
		r.latch += f(6)
		r.latchMS += f(7)
		r.lock += f(8)
		r.lockMS += f(9)
	}
	if err := rows.Err(); err != nil {
		return nil, ms.AsPrivilegeError(err, s, ms.DatabaseScope)
	}
	var out []collectors.Counter
	for _, k := range order {
		r := byIndex[k]
		sort.Strings(r.parts)
		id := fmt.Sprintf("object=%d index=%d partitions=%s", r.objectID, r.indexID, strings.Join(r.parts, ","))
		if st := startIdentity(s); st != "" {
			id += " " + st
		}
		if r.indexID <= 1 {
			// The heap or clustered index holds every row once: its leaf
			// counts are the table's row counts.
			t := collectors.FQN(r.schema, r.table)
			const how = " at the heap/clustered index leaf level"
			c := collectors.NewCounter(collectors.Table, t, result.RowsInserted, r.ins, result.Derived, opStats+".leaf_insert_count"+how, id)
			out = append(out, c)
			c = collectors.NewCounter(collectors.Table, t, result.RowsUpdated, r.upd, result.Derived, opStats+".leaf_update_count"+how, id)
			c.Note = "in-place updates; an update that changes the clustered key counts as a delete and an insert"
			out = append(out, c)
			out = append(out, collectors.NewCounter(collectors.Table, t, result.RowsDeleted, r.del+r.ghost, result.Derived, opStats+".leaf_delete_count + leaf_ghost_count"+how, id))
		}
		if r.indexID == 0 || r.index == "" {
			continue
		}
		o := collectors.FQN(r.schema, r.index)
		add := func(metric *result.Info, v float64, e result.Exactness, col, note string) {
			c := collectors.NewCounter(collectors.Index, o, metric, v, e, opStats+"."+col, id)
			c.Note = note
			out = append(out, c)
		}
		add(result.LeafInserts, r.ins, result.Exact, "leaf_insert_count", "a key-changing update is a delete and an insert in this index")
		add(result.LeafDeletes, r.del+r.ghost, result.Exact, "leaf_delete_count + leaf_ghost_count", "rows deleted at once plus rows marked as ghosts for later cleanup")
		add(result.LeafUpdates, r.upd, result.Exact, "leaf_update_count", "in-place updates of the entry")
		add(result.LeafAllocations, r.alloc, result.Exact, "leaf_allocation_count", "")
		add(result.LeafPageSplits, r.alloc, result.Approx, "leaf_allocation_count",
			"leaf page allocations: page splits plus harmless allocations at the end of an ever-increasing key")
		add(result.PageMerges, r.mrg, result.Exact, "leaf_page_merge_count", "")
		add(result.PageLatchWaits, r.latch, result.Exact, "page_latch_wait_count", "")
		add(result.PageLatchWaitMs, r.latchMS, result.Exact, "page_latch_wait_in_ms", "")
		add(result.RowLockWaits, r.lock, result.Exact, "row_lock_wait_count", "")
		add(result.RowLockWaitMs, r.lockMS, result.Exact, "row_lock_wait_in_ms", "")
	}
	return out, nil
}
