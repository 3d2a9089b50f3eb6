package postgres

import (
	"context"
	"strconv"
	"strings"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// WalReplay reads a standby's replay position: the difference of two
// readings is the primary's WAL this standby applied in between. It is the
// standby's MarkLSN, so the decoder reads the replayed records from the
// standby's own pg_wal.
type WalReplay struct{}

// MarkPosition names what MarkLSN holds: "insert" on a primary, "replay" on
// a standby.
const MarkPosition = "wal_position"

func (WalReplay) Name() string { return "wal_replay" }

// Supports is nil on a primary too, where it reads nothing: a primary's
// WAL is read at its insert position (WalLSN), and listing the replay
// position as missing on every primary would be noise in every report.
func (WalReplay) Supports(s dialects.Server) error { return nil }

func (WalReplay) read(ctx context.Context, qr dialects.Querier, s dialects.Server) (string, float64, error) {
	var lsn, bytes string
	if err := queries.QueryRow(ctx, qr, pg.Name, "wal_replay_lsn", s.VersionNum).Scan(&lsn, &bytes); err != nil {
		return "", 0, err
	}
	v, err := strconv.ParseFloat(bytes, 64)
	return lsn, v, err
}

func (w WalReplay) Marks(ctx context.Context, qr dialects.Querier, s dialects.Server) (map[string]string, error) {
	if !s.Has(pg.CapStandby) {
		return nil, nil
	}
	lsn, _, err := w.read(ctx, qr, s)
	if err != nil {
		return nil, err
	}
	return map[string]string{MarkLSN: lsn, MarkPosition: "replay"}, nil
}

func (w WalReplay) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, _ collectors.Scope) ([]collectors.Counter, error) {
	if !s.Has(pg.CapStandby) {
		return nil, nil
	}
	_, v, err := w.read(ctx, qr, s)
	if err != nil {
		return nil, err
	}
	const src = "pg_last_wal_replay_lsn() difference (the primary's WAL this standby replayed; includes WAL page headers)"
	return []collectors.Counter{
		exact(collectors.DB, "", result.ReplayedLogBytes, v, src, ""),
		exact(collectors.DB, "", result.LogBytes, v, src, ""),
	}, nil
}

// standbyUnavailable is why a standby's row counters are no figure of the
// window: replay applies the primary's changes without counting them.
const standbyUnavailable = "unavailable: a standby does not count replayed rows"

// standbyRowMetrics are the pg_stat_user_tables counters replay leaves at zero.
var standbyRowMetrics = []*result.Info{result.RowsInserted, result.RowsUpdated, result.RowsDeleted, result.HotUpdates, result.AutovacuumRuns, result.AutoanalyzeRuns, result.VacuumRuns}

// DeriveStandby replaces, on a standby, the row counters the diff read as
// zero with "unavailable" (never a false zero), and the pg_stat_user_tables
// newpage count with the WAL's where the decoder read it. It runs before the
// other derivers, so the HOT ratio and derived leaf inserts are unavailable
// too rather than computed from zeros.
func DeriveStandby(d *collectors.Delta) {
	if !d.Server.Has(pg.CapStandby) {
		return
	}
	d.Unavailable(collectors.Table, standbyRowMetrics, "pg_stat_user_tables on a standby", standbyUnavailable)
	for _, o := range d.Objects {
		if o.Level != collectors.Table {
			continue
		}
		k := key(collectors.Table, o.FQN(), result.NewpageUpdates)
		if m, ok := d.Values[k]; ok && strings.HasPrefix(m.Source, "pg_stat_user_tables") {
			d.Values[k] = result.NA("pg_stat_user_tables on a standby", standbyUnavailable)
		}
	}
}
