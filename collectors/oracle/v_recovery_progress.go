package oracle

import (
	"context"
	"database/sql"
	"strings"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	ora "github.com/writeamp/writeamp/dialects/oracle"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// VRecoveryProgress reads, on a physical standby, the redo Redo Apply has
// applied since its recovery session started: the difference of two
// readings is the primary's redo this standby applied in the window, the
// standby's counterpart of the primary's log_bytes. Megabytes, so approx.
type VRecoveryProgress struct{}

func (VRecoveryProgress) Name() string { return "v_recovery_progress" }

// Supports is nil on a primary too, where it reads nothing: listing the
// redo applied as missing on every primary would be noise in every report.
func (VRecoveryProgress) Supports(s dialects.Server) error { return unsupportedVersion(s) }

// megabyte is what the 'Redo Applied' row counts in, taken as 2^20 bytes:
// the reference does not say, and were it 10^6 the figure would be 4.9% high,
// one more reason it is approx.
const megabyte = 1 << 20

// appliedLacks are the figures a standby without Redo Apply's count lacks.
var appliedLacks = []string{result.ReplayedLogBytes.Name, result.LogBytes.Name}

func (VRecoveryProgress) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, _ collectors.Scope) ([]collectors.Counter, error) {
	if !ora.IsStandby(s) {
		return nil, nil
	}
	rows, err := queries.Query(ctx, qr, ora.Name, "v_recovery_progress", s.VersionNum)
	if err != nil {
		return nil, ora.AsPrivilegeError(err, s, "v_$recovery_progress")
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, ora.AsPrivilegeError(err, s, "v_$recovery_progress")
		}
		return nil, &dialects.Unavailable{Lacks: appliedLacks, Reason: dialects.Reason{Kind: dialects.Setting,
			Text: "Redo Apply is not running on this standby: V$RECOVERY_PROGRESS has no 'Redo Applied' row of a media recovery",
			Fix:  "ALTER DATABASE RECOVER MANAGED STANDBY DATABASE DISCONNECT FROM SESSION"}}
	}
	// The newest recovery session only: an ended one's rows may remain.
	var started, units sql.NullString
	var sofar sql.NullFloat64
	if err := rows.Scan(&started, &units, &sofar); err != nil {
		return nil, err
	}
	if !strings.EqualFold(strings.TrimSpace(units.String), "Megabytes") || !sofar.Valid {
		return nil, &dialects.Unavailable{Lacks: appliedLacks, Reason: dialects.Reason{Kind: dialects.Unreadable,
			Text: "V$RECOVERY_PROGRESS counts 'Redo Applied' in '" + units.String + "', not the Megabytes writeamp reads"}}
	}
	c := collectors.NewCounter(collectors.DB, "", result.ReplayedLogBytes, sofar.Float64*megabyte, result.Approx,
		"V$RECOVERY_PROGRESS 'Redo Applied' difference (the primary's redo this standby applied; Megabytes taken as 1,048,576 bytes)",
		"recovery_started="+started.String)
	c.Note = "whole megabytes: each reading is up to 1 MiB short, so the window's figure is within ±1 MiB"
	return []collectors.Counter{c}, nil
}
