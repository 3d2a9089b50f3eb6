package sqlserver

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// Capabilities of the database's copies: which copy this connection is on,
// and what the server keeps about the others.
const (
	// CapAGPrimary: the database is the primary of an Always On availability
	// group, so it has secondaries it ships its log to.
	CapAGPrimary = "ag_primary"
	// CapAGSecondary: the database is a readable copy (an availability
	// group secondary, an Azure read replica, a log-shipping standby): redo
	// applies the primary's log there, and nothing runs its DML.
	CapAGSecondary = "ag_secondary"
	// CapRowCounters: sys.dm_db_index_operational_stats counts this copy's
	// rows and index entries written. Missing on a secondary, with a Role
	// reason: its counters would read as zero writes while redo writes.
	CapRowCounters = "row_counters"
	// CapViewAnyDefinition: sys.availability_replicas shows the group's
	// replicas (their names) only with VIEW ANY DEFINITION.
	CapViewAnyDefinition = "view_any_definition"
	// CapResourceStats: sys.dm_db_resource_stats, Azure SQL Database's
	// 15-second log-rate use against its tier's limit. Named as its
	// collector, so doctor lists the view's absence once, not twice.
	CapResourceStats = "sys_dm_db_resource_stats"
)

// secondaryReason is why a secondary's row counters are no figure of the
// window: the rows the primary wrote reach this copy as redone log records,
// not as the statements the access methods count.
const secondaryReason = "the database is a readable secondary copy (redo applies the primary's log here; no statement writes to it)"

// probeRole learns which copy of the database this is from what every login
// may read: sys.databases and DATABASEPROPERTYEX, no DMV (those need VIEW
// SERVER STATE, and the probe must not be what fails).
func probeRole(ctx context.Context, q dialects.Querier, s *dialects.Server) error {
	var inGroup int64
	var standby bool
	var updateability sql.NullString
	var anyDefinition sql.NullInt64
	if err := queries.QueryRow(ctx, q, Name, "hadr_role", s.VersionNum).Scan(&inGroup, &standby, &updateability, &anyDefinition); err != nil {
		return fmt.Errorf("sqlserver: probe the database's replica role: %w", err)
	}
	readOnly := strings.EqualFold(strings.TrimSpace(updateability.String), "READ_ONLY")
	azure := s.Flavor == FlavorAzureSQLDatabase || s.Flavor == FlavorManagedInstance
	// A read-only database that is no copy of anything is just read-only:
	// nothing writes there, so its zeros are true.
	secondary := readOnly && (inGroup == 1 || standby || azure)
	primary := inGroup == 1 && !readOnly

	// A standalone database records no role at all, as a PostgreSQL primary
	// records no standby: doctor lists what is missing, and nothing is.
	switch {
	case s.Flavor == FlavorAzureSQLDatabase:
		s.Deny(CapAGPrimary, dialects.Reason{Kind: dialects.Version,
			Text: "Azure SQL Database shows neither its replicas nor their counters (sys.availability_replicas and the Availability Replica counters are SQL Server's): the log its copies receive is not readable"})
	case primary:
		s.Set(CapAGPrimary, true, "")
		s.SetReason(CapViewAnyDefinition, one(anyDefinition), dialects.Reason{Kind: dialects.Privilege,
			Text: "missing VIEW ANY DEFINITION (sys.availability_replicas names the secondaries only to it)",
			Fix:  "USE master; GRANT VIEW ANY DEFINITION TO " + QuoteIdent(loginOf(*s))})
	case secondary:
		s.Deny(CapAGPrimary, dialects.Reason{Kind: dialects.Role, Text: secondaryReason + ": it ships no log"})
	}
	s.SetReason(CapRowCounters, !secondary, dialects.Reason{Kind: dialects.Role,
		Text: secondaryReason + ": sys.dm_db_index_operational_stats there counts this copy's own access, not the rows and index entries redo writes"})
	if secondary {
		s.Set(CapAGSecondary, true, "")
		s.Deny(CapCheckpoint, dialects.Reason{Kind: dialects.Role,
			Text: secondaryReason + ": writeamp runs no CHECKPOINT there (it would settle this copy, not the primary the workload writes to)"})
	}
	s.SetReason(CapResourceStats, s.Flavor == FlavorAzureSQLDatabase, dialects.Reason{Kind: dialects.Version,
		Text: "sys.dm_db_resource_stats is Azure SQL Database's (engine edition 5): this server has no service tier whose log rate it measures"})
	return nil
}

func loginOf(s dialects.Server) string {
	if l := s.Prop(PropLogin); l != "" {
		return l
	}
	return s.User
}
