package postgres

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"time"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// BeforeMeasure runs CHECKPOINT so every measured phase starts the same way:
// the first change to each page after a checkpoint writes a full-page image,
// so without it the FPI share of the WAL depends on when the last one ran.
func (d Dialect) BeforeMeasure(ctx context.Context, db *sql.DB, s dialects.Server) []string {
	return d.BeforeMeasureScope(ctx, db, s, nil)
}

// BeforeMeasureScope is BeforeMeasure for a window on these schemas. On
// 13/14 it first waits until the statistics of what ran before on them (the
// workload's DDL and planner-statistics seed) have reached the collector, so
// they do not land inside the window.
func (Dialect) BeforeMeasureScope(ctx context.Context, db *sql.DB, s dialects.Server, schemas []string) []string {
	if s.Has(CapStandby) {
		// No CHECKPOINT on a standby; its window starts where the primary
		// is, so the WAL before it is not counted in it.
		return awaitReplay(ctx, db, s)
	}
	var warnings []string
	// Another writeamp run's window may still have WAL to read: a checkpoint
	// now would let the server remove it.
	var holders int
	others := false
	if err := queries.QueryRow(ctx, db, Name, "others_measuring", s.VersionNum).Scan(&holders); err == nil {
		if s.Prop(PropMeasuring) != "" {
			holders-- // this run's own hold
		}
		if holders > 0 {
			others = true
			warnings = append(warnings, fmt.Sprintf("no CHECKPOINT before the window: %d other writeamp run(s) are measuring on this server, and a checkpoint would let the server remove WAL their windows have yet to read; full-page-image bytes depend on the time since the last checkpoint", holders))
		}
	}
	switch {
	case others:
	case s.Prop(dialects.PropNoCheckpoint) != "":
		warnings = append(warnings, "no CHECKPOINT before the window ("+s.Prop(dialects.PropNoCheckpoint)+"): its full-page images are those of a server between checkpoints")
	case !s.Has(CapCheckpoint):
		warnings = append(warnings, "no CHECKPOINT before the window: "+s.Why(CapCheckpoint)+"; full-page-image bytes depend on the time since the last checkpoint")
	default:
		if err := checkpoint(ctx, db, s); err != nil {
			warnings = append(warnings, "CHECKPOINT before the window failed: "+err.Error())
		} else {
			warnings = append(warnings, dialects.AfterCheckpoint)
		}
	}
	if !supportsSharedMemStats(s.VersionNum) && len(schemas) > 0 {
		if !collectorSettled(ctx, db, s, schemas) {
			warnings = append(warnings, fmt.Sprintf("statistics of earlier activity were still arriving %s before the window (PostgreSQL 13/14 collector): they may be counted in it", settleBound))
		}
	}
	return warnings
}

// checkpoint runs CHECKPOINT and waits until the checkpointer has published
// it: the command returns before the checkpointer reports its statistics, and
// a count that lands after the "before" snapshot would show a checkpoint
// inside the window that ran before it.
func checkpoint(ctx context.Context, db *sql.DB, s dialects.Server) error {
	count := func() int64 {
		var n int64
		var reset string
		if err := queries.QueryRow(ctx, db, Name, "pg_stat_checkpointer", s.VersionNum).Scan(&n, &reset); err != nil {
			return -1
		}
		return n
	}
	before := count()
	if _, err := queries.Exec(ctx, db, Name, "checkpoint", s.VersionNum); err != nil {
		return err
	}
	for deadline := time.Now().Add(3 * time.Second); before >= 0 && count() == before && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// Settle makes the workload's statistics visible to the "after" snapshot.
// 15+: the workload's connections ended with pg_stat_force_next_flush(), so
// there is nothing to wait for. 13/14: the workload's connections were closed
// (EndSession), so each backend sent its last counts as it exited; the
// collector may still be on its way, so poll until two readings agree.
//
// A standby first waits for replay to catch up (standby.go), a primary for
// its streaming standbys to be sent the window's tail.
func (Dialect) Settle(ctx context.Context, db *sql.DB, s dialects.Server, schemas []string) []string {
	var warnings []string
	if s.Has(CapStandby) {
		// A standby's row counters are not the workload's: nothing to settle.
		return awaitReplay(ctx, db, s)
	}
	warnings = append(warnings, awaitStandbys(ctx, db, s)...)
	if supportsSharedMemStats(s.VersionNum) {
		return warnings
	}
	if !collectorSettled(ctx, db, s, schemas) {
		warnings = append(warnings, fmt.Sprintf("statistics were still changing %s after the workload (PostgreSQL 13/14 collector): table counts may be short", settleBound))
	}
	return warnings
}

// settleBound is how long the 13/14 collector gets to deliver counts.
const settleBound = 10 * time.Second

// collectorSettled polls the row counters of the schemas (nil: every user
// table) until two readings agree. The old collector writes its stats file
// at most every 500 ms (PGSTAT_STAT_INTERVAL) and a reader accepts a file up
// to that old, so readings 600 ms apart each see newer counts than the last.
func collectorSettled(ctx context.Context, db *sql.DB, s dialects.Server, schemas []string) bool {
	probe, err := queries.Get(Name, "stats_settle_probe", s.VersionNum)
	if err != nil {
		return false // as a failed probe: the caller warns the counts may be off
	}
	var last int64 = -1
	deadline := time.Now().Add(settleBound)
	for time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(600 * time.Millisecond):
		}
		var v int64
		// One statement per transaction: the old collector's snapshot is
		// cached for the whole transaction.
		if err := db.QueryRowContext(ctx, probe, schemas).Scan(&v); err != nil {
			return false
		}
		if v == last {
			return true
		}
		last = v
	}
	return false
}

// EndSession publishes the session's statistics now: on 15+ with
// pg_stat_force_next_flush() (it must run outside a transaction) instead of
// up to 10 s later. On 13/14 a backend sends its counts at most every
// 500 ms, when a transaction ends, and at exit, so an idle pooled
// connection can hold the last counts indefinitely: the connection is
// closed, and the backend sends them as it exits.
func (Dialect) EndSession(ctx context.Context, conn *sql.Conn, s dialects.Server) error {
	if !supportsSharedMemStats(s.VersionNum) {
		err := conn.Raw(func(any) error { return driver.ErrBadConn })
		if errors.Is(err, driver.ErrBadConn) {
			return nil // database/sql closes a connection whose Raw returns ErrBadConn
		}
		return err
	}
	_, err := queries.Exec(ctx, conn, Name, "force_next_flush", s.VersionNum)
	return err
}
