package sqlserver

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	ms "github.com/writeamp/writeamp/dialects/sqlserver"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// Azure SQL Database governs the log write rate per service tier and keeps
// its use in sys.dm_db_resource_stats: one row per 15 seconds, for about an
// hour. No counter covers exactly the window, so the window is the rows
// whose interval overlaps it, matched on the server's clock: each snapshot
// marks it (SysDmDbResourceStatsMark), and after the window
// SysDmDbResourceStats reads the rows between the marks.

// MarkServerUTC is the snapshot mark holding SYSUTCDATETIME();
// markServerUTCError records why it could not be read.
const (
	MarkServerUTC      = "server_utc"
	markServerUTCError = "server_utc_error"
)

const resourceStats = "sys.dm_db_resource_stats"

// resourceInterval is the view's row period.
const resourceInterval = 15 * time.Second

// SysDmDbResourceStatsMark records the server's clock in each snapshot on
// Azure SQL Database. It always "supports" the server so that a server
// without the view gets one line about it (from SysDmDbResourceStats), not two.
type SysDmDbResourceStatsMark struct{}

func (SysDmDbResourceStatsMark) Name() string                   { return "sys_dm_db_resource_stats_mark" }
func (SysDmDbResourceStatsMark) Supports(dialects.Server) error { return nil }

// Marks never fails the snapshot: a clock that cannot be read is recorded
// for the interval collector to report.
func (SysDmDbResourceStatsMark) Marks(ctx context.Context, qr dialects.Querier, s dialects.Server) (map[string]string, error) {
	if !s.Has(ms.CapResourceStats) {
		return nil, nil
	}
	var now time.Time
	if err := queries.QueryRow(ctx, qr, ms.Name, "server_utc", s.VersionNum).Scan(&now); err != nil {
		return map[string]string{markServerUTCError: err.Error()}, nil
	}
	return map[string]string{MarkServerUTC: now.UTC().Format(time.RFC3339Nano)}, nil
}

// SysDmDbResourceStats is the window's log rate against the tier's limit.
type SysDmDbResourceStats struct{}

func (SysDmDbResourceStats) Name() string { return "sys_dm_db_resource_stats" }

var resourceLacks = []string{result.LogRateLimitShareMax.Name, result.LogRateLimitShareAvg.Name}

// Supports is a typed "not here" everywhere but Azure SQL Database: another
// server has no service tier whose log rate the view measures.
func (SysDmDbResourceStats) Supports(s dialects.Server) error {
	if err := unsupportedVersion(s); err != nil {
		return err
	}
	if !s.Has(ms.CapResourceStats) {
		u := s.Unsupported(ms.CapResourceStats)
		u.Lacks = resourceLacks
		return u
	}
	return need(s, ms.CapViewDatabaseStateFull, ms.DatabaseStateScope)
}

func (SysDmDbResourceStats) CollectInterval(ctx context.Context, qr dialects.Querier, s dialects.Server, before, after *collectors.Snapshot) ([]collectors.Counter, error) {
	for _, snap := range []*collectors.Snapshot{before, after} {
		if e := snap.Marks[markServerUTCError]; e != "" {
			return nil, fmt.Errorf("could not read the server's clock: %s", e)
		}
	}
	start, err1 := time.Parse(time.RFC3339Nano, before.Marks[MarkServerUTC])
	end, err2 := time.Parse(time.RFC3339Nano, after.Marks[MarkServerUTC])
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("the server's clock was not read in both snapshots (SYSUTCDATETIME()): the window cannot be placed among the view's rows")
	}
	var n int64
	var maxPct, avgPct sql.NullFloat64
	var first, last sql.NullTime
	// The driver sends a time.Time as datetimeoffset; end_time, a UTC
	// datetime, converts to it at +00:00, so UTC marks compare as they should.
	err := queries.QueryRow(ctx, qr, ms.Name, "sys_dm_db_resource_stats", s.VersionNum, start, end).Scan(&n, &maxPct, &avgPct, &first, &last)
	if err != nil {
		return nil, ms.AsPrivilegeError(err, s, ms.DatabaseStateScope)
	}
	src := fmt.Sprintf("%s.avg_log_write_percent over the %d 15-second intervals overlapping the window (server UTC %s to %s)",
		resourceStats, n, start.Format(time.RFC3339), end.Format(time.RFC3339))
	mk := func(m *result.Info, what string, v sql.NullFloat64) collectors.Counter {
		c := collectors.Counter{Key: collectors.NewKey(collectors.DB, "", m), Exactness: result.Approx, Source: what + " of " + src, Interval: true}
		if n == 0 || !v.Valid {
			c.Exactness = result.Unavailable
			c.Note = "no 15-second interval of " + resourceStats + " overlaps the window yet: the view writes an interval's row when it ends"
			return c
		}
		c.Value = v.Float64 / 100
		c.Note = coverage(start, end, first.Time, last.Time)
		return c
	}
	return []collectors.Counter{mk(result.LogRateLimitShareMax, "max", maxPct), mk(result.LogRateLimitShareAvg, "mean", avgPct)}, nil
}

// coverage says how the view's intervals miss or exceed the window: they
// are whole 15-second intervals, the oldest are dropped after about an hour
// (or at a failover), and the current one has no row yet.
func coverage(start, end, first, last time.Time) string {
	note := "whole 15-second intervals: activity just outside the window is in them"
	if gap := first.Add(-resourceInterval).Sub(start); gap > resourceInterval {
		note += fmt.Sprintf("; the window's first %s are not covered (the view keeps about an hour, or since the last failover)", gap.Round(time.Second))
	}
	if gap := end.Sub(last); gap > 0 {
		note += fmt.Sprintf("; its last %s are in an interval the view had not yet written", gap.Round(time.Second))
	}
	return note
}
