package oracle

import (
	"context"
	"database/sql"
	"strings"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// Data Guard roles (USERENV DATABASE_ROLE, V$DATABASE.DATABASE_ROLE).
const (
	RolePrimary         = "PRIMARY"
	RolePhysicalStandby = "PHYSICAL STANDBY"
)

// Capabilities a database's Data Guard role decides.
const (
	// CapPrimary: the database is the primary, the one that writes and
	// ships redo to its archive destinations.
	CapPrimary = "primary"
	// CapStandby: a physical standby (Redo Apply). Set only when true, so a
	// primary's doctor lists nothing for it.
	CapStandby = "standby"
	// CapWriteCounters: the V$SYSSTAT and V$SEGMENT_STATISTICS counters count
	// the window's writes. A physical standby changes its blocks by media
	// recovery, which no documented statistic of either view counts, so its
	// figures there would be false zeros.
	CapWriteCounters = "write_counters"

	PropDatabaseRole = "database_role"
	PropDBUniqueName = "db_unique_name"
)

// IsStandby reports whether the probe found a physical standby.
func IsStandby(s dialects.Server) bool { return s.Has(CapStandby) }

// probeRole records the database's Data Guard role. It never fails the
// probe: a role it cannot read is an unreadable primary capability, and the
// collectors that need to know say so.
func probeRole(ctx context.Context, q dialects.Querier, s *dialects.Server, v int) {
	var role, unique sql.NullString
	if err := queries.QueryRow(ctx, q, Name, "database_role", v).Scan(&role, &unique); err != nil {
		s.Deny(CapPrimary, dialects.Reason{Kind: dialects.Unreadable, Text: "cannot read the database's Data Guard role (USERENV DATABASE_ROLE): " + err.Error()})
		return
	}
	r := strings.ToUpper(strings.TrimSpace(role.String))
	s.SetProp(PropDatabaseRole, r)
	s.SetProp(PropDBUniqueName, unique.String)
	switch r {
	case "":
		s.Deny(CapPrimary, dialects.Reason{Kind: dialects.Unreadable, Text: "USERENV DATABASE_ROLE is empty: the database's Data Guard role is not known"})
	case RolePrimary:
		s.Set(CapPrimary, true, "")
		s.Set(CapWriteCounters, true, "")
	case RolePhysicalStandby:
		s.Set(CapStandby, true, "")
		text := "the database is a physical standby (DATABASE_ROLE " + r + ")"
		s.Deny(CapPrimary, dialects.Reason{Kind: dialects.Role, Text: text + ": it writes no redo of its own and ships none to archive destinations"})
		s.Deny(CapWriteCounters, dialects.Reason{Kind: dialects.Role, Text: text + ": Redo Apply changes its blocks by media recovery, which no documented V$SYSSTAT or V$SEGMENT_STATISTICS statistic counts, so their figures there are not the window's writes"})
	default:
		// A logical standby (SQL Apply runs the primary's changes as SQL)
		// and a snapshot standby write their own redo: their counters count.
		s.Deny(CapPrimary, dialects.Reason{Kind: dialects.Role, Text: "the database's Data Guard role is " + r + ", not PRIMARY: its archive destinations are not the primary's copies"})
		s.Set(CapWriteCounters, true, "")
	}
}
