package mysql

import (
	"context"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// Where the rows a wrapped command wrote can be counted per table: InnoDB
// keeps no such counter, but the server's SQL layer can.
const (
	// CapTableIO: performance_schema's table I/O summary counts the rows
	// inserted, updated and deleted per table (performance_schema ON, the
	// wait/io/table/sql/handler instrument and the global_instrumentation
	// consumer enabled: MySQL 8's defaults; MariaDB ships it off).
	CapTableIO = "performance_schema_table_io"
	// CapUserstat: MariaDB's (and Percona's) User Statistics are on
	// (userstat = ON): INFORMATION_SCHEMA.TABLE_STATISTICS counts the rows
	// changed per table (11.5+: inserted, updated, deleted apart).
	CapUserstat = "userstat"
)

// probeTableRows records which per-table row counter this server keeps.
func probeTableRows(ctx context.Context, q dialects.Querier, s *dialects.Server, perfSchema bool) {
	v := s.VersionNum
	switch {
	case !perfSchema:
		s.Deny(CapTableIO, dialects.Reason{Kind: dialects.Setting, Text: "performance_schema is off", Fix: "performance_schema = ON in the server's configuration, then a restart"})
	default:
		var on bool
		err := queries.QueryRow(ctx, q, Name, "table_io_probe", v).Scan(&on)
		switch pe := AsPrivilegeError(err, *s, "SELECT on performance_schema", "GRANT SELECT ON performance_schema.* TO "+s.Prop(PropHostUser)); {
		case pe != nil:
			s.Deny(CapTableIO, dialects.Reason{Kind: dialects.Privilege, Text: "performance_schema is not readable", Fix: pe.Grant})
		case err != nil:
			s.Deny(CapTableIO, dialects.Reason{Kind: dialects.Unreadable, Text: "performance_schema table I/O: " + err.Error()})
		default:
			s.SetReason(CapTableIO, on, dialects.Reason{Kind: dialects.Setting, Text: "performance_schema's wait/io/table/sql/handler instrument or its global_instrumentation consumer is disabled",
				Fix: "UPDATE performance_schema.setup_instruments SET ENABLED = 'YES' WHERE NAME = 'wait/io/table/sql/handler'"})
		}
	}
	if !isMariaDB(v) {
		s.Set(CapUserstat, false, "INFORMATION_SCHEMA.TABLE_STATISTICS is MariaDB's (and Percona Server's)")
		return
	}
	var name, value string
	err := queries.QueryRow(ctx, q, Name, "userstat_probe", v).Scan(&name, &value)
	s.Set(CapUserstat, err == nil && (value == "ON" || value == "1"), "User Statistics are off: SET GLOBAL userstat = 1 (needs SUPER) turns INFORMATION_SCHEMA.TABLE_STATISTICS on")
}
