package sqlserver

import (
	"github.com/writeamp/writeamp/collectors"
	ms "github.com/writeamp/writeamp/dialects/sqlserver"
	"github.com/writeamp/writeamp/result"
)

// secondaryTableMetrics and secondaryIndexMetrics are what
// sys.dm_db_index_operational_stats would give a secondary as writes:
// the rows and index entries redo writes there reach it as log records, not
// as the statements those counters count, so they would read as zero or as
// this copy's own work. Its latch and lock waits are this copy's and stay.
var (
	secondaryTableMetrics = []*result.Info{result.RowsInserted, result.RowsUpdated, result.RowsDeleted}
	secondaryIndexMetrics = []*result.Info{result.LeafInserts, result.LeafDeletes, result.LeafUpdates, result.LeafAllocations, result.LeafPageSplits, result.PageMerges}
)

// DeriveSecondary replaces, on a readable secondary, the row and index-entry
// counts the diff read with "unavailable" and the probe's typed reason
// (never a false zero), as PostgreSQL's DeriveStandby does for a standby. It
// runs before the other derivers, so nothing is computed from those zeros.
func DeriveSecondary(d *collectors.Delta) {
	if d.Server.Has(ms.CapRowCounters) || !d.Server.Has(ms.CapAGSecondary) {
		return
	}
	why := "unavailable: " + d.Server.Reason(ms.CapRowCounters).Text
	d.Unavailable(collectors.Table, secondaryTableMetrics, opStats+" on a secondary", why)
	d.Unavailable(collectors.Index, secondaryIndexMetrics, opStats+" on a secondary", why)
}
