package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// FileSummaryByEventName reads MySQL's binlog bytes written from
// performance_schema's file I/O instrumentation (MySQL has no
// Binlog_bytes_written). MariaDB's binlog bytes come from global_status.
type FileSummaryByEventName struct{}

func (FileSummaryByEventName) Name() string { return "file_summary_by_event_name" }

// Supports is nil where this source does not apply (MariaDB, binary logging
// off): the collector then reads nothing, and DeriveUnavailable says why
// binlog_bytes is missing, once, beside the metric.
func (FileSummaryByEventName) Supports(s dialects.Server) error {
	if applies(s) && !s.Has(my.CapPerfSchemaBinlog) {
		return s.Unsupported(my.CapPerfSchemaBinlog)
	}
	return nil
}

func applies(s dialects.Server) bool { return !my.IsMariaDB(s) && s.Has(my.CapBinlog) }

func (FileSummaryByEventName) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, _ collectors.Scope) ([]collectors.Counter, error) {
	if !applies(s) {
		return nil, nil
	}
	var bytes sql.NullFloat64
	err := queries.QueryRow(ctx, qr, my.Name, "file_summary_by_event_name", s.VersionNum).Scan(&bytes)
	if pe := my.AsPrivilegeError(err, s, "SELECT on performance_schema.file_summary_by_event_name",
		"GRANT SELECT ON performance_schema.file_summary_by_event_name TO "+s.Prop(my.PropHostUser)); pe != nil {
		return nil, pe
	}
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: performance_schema has no wait/io/file/sql/binlog instrument (disabled in setup_instruments?)", dialects.ErrUnsupported)
	}
	if err != nil {
		return nil, err
	}
	return []collectors.Counter{collectors.NewCounter(collectors.DB, "", result.BinlogBytes, bytes.Float64, result.Exact,
		"performance_schema.file_summary_by_event_name wait/io/file/sql/binlog SUM_NUMBER_OF_BYTES_WRITE (whole server)", "")}, nil
}
