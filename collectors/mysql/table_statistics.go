package mysql

import (
	"context"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/result"
)

// TableStatistics reads MariaDB's User Statistics (userstat = ON):
// INFORMATION_SCHEMA.TABLE_STATISTICS counts the rows changed per table,
// which 10.11 gives as one number (rows_written: inserted + updated +
// deleted) and 11.5+ apart. Read only where performance_schema does not
// count table I/O (TableIOWaitsSummaryByTable, which says why neither is
// there when neither is).
type TableStatistics struct{}

func (TableStatistics) Name() string                   { return "table_statistics" }
func (TableStatistics) Supports(dialects.Server) error { return nil }

// splitRows is MariaDB 11.5's TABLE_STATISTICS, with ROWS_INSERTED,
// ROWS_UPDATED and ROWS_DELETED (MDEV-33151).
func splitRows(s dialects.Server) bool { return s.VersionNum >= my.MariaDBBase+110500 }

func (TableStatistics) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, sc collectors.Scope) ([]collectors.Counter, error) {
	if s.Has(my.CapTableIO) || !s.Has(my.CapUserstat) {
		return nil, nil
	}
	if splitRows(s) {
		return tableRows(ctx, qr, s, sc, "table_statistics", []*result.Info{result.RowsInserted, result.RowsUpdated, result.RowsDeleted},
			[]string{"ROWS_INSERTED", "ROWS_UPDATED", "ROWS_DELETED"}, "INFORMATION_SCHEMA.TABLE_STATISTICS %s (userstat; rows the SQL layer wrote to the table)")
	}
	return tableRows(ctx, qr, s, sc, "table_statistics", []*result.Info{result.RowsWritten},
		[]string{"ROWS_CHANGED"}, "INFORMATION_SCHEMA.TABLE_STATISTICS %s (userstat; rows inserted + updated + deleted in the table, not told apart before MariaDB 11.5)")
}
