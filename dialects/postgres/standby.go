package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// CapStandby: the server is a physical standby (pg_is_in_recovery()). It
// writes nothing of its own: what a window shows there is the primary's WAL
// replayed, and the row counters, which replay does not keep, are unavailable.
const CapStandby = "standby"

// standbyReason is why a standby gives no figures that only a primary keeps.
const standbyReason = "the server is a standby (in recovery)"

// asStandby takes back what a standby must not do, whatever the login may:
// writeamp never writes to a standby (a CHECKPOINT there is a restartpoint,
// a slot and CREATE EXTENSION are writes a standby refuses or that change
// what its primary keeps), and pg_walinspect 15 refuses to run in recovery.
// The WAL is read with writeamp's decoder from the standby's own pg_wal.
func asStandby(s *dialects.Server) {
	s.Set(CapStandby, true, "")
	s.Deny(CapCheckpoint, dialects.Reason{Kind: dialects.Role, Text: standbyReason + ": writeamp runs no CHECKPOINT there (it would be a restartpoint of the standby, not a settle of the primary)"})
	s.Deny(CapHoldWAL, dialects.Reason{Kind: dialects.Role, Text: standbyReason + ": writeamp creates no replication slot there; the standby keeps the WAL it replays until its next restartpoint"})
	s.Deny(CapCreateWalinspect, dialects.Reason{Kind: dialects.Role, Text: standbyReason + ": writeamp creates no extension there"})
	s.Deny(CapWalinspect, dialects.Reason{Kind: dialects.Role, Text: standbyReason + ": pg_walinspect is not used there (15 refuses to run during recovery); the WAL is read with writeamp's own decoder"})
}

// ReplayBound is how long a window on a standby waits, after the workload,
// for replay to reach the primary's position.
var ReplayBound = 30 * time.Second

// awaitReplay waits until the standby has replayed all it received and what
// the primary last said its WAL end was, and the received position has held
// for three readings: the primary may still be sending the workload's tail.
func awaitReplay(ctx context.Context, db *sql.DB, s dialects.Server) []string {
	// A paused standby does not catch up however long the window waits.
	var pause string
	if err := queries.QueryRow(ctx, db, Name, "replay_pause_state", s.VersionNum).Scan(&pause); err == nil && pause != "not paused" {
		return []string{fmt.Sprintf("replay is paused on the standby (pg_get_wal_replay_pause_state(): %s): the window did not wait for it to catch up, and what it received is not replayed within the window", pause)}
	}
	deadline := time.Now().Add(ReplayBound)
	last, still := "", 0
	var behind, behindPrimary int64
	for time.Now().Before(deadline) {
		var recv string
		if err := queries.QueryRow(ctx, db, Name, "replay_catchup", s.VersionNum).Scan(&behind, &behindPrimary, &recv); err != nil {
			return []string{"could not read the standby's replay position after the workload: " + err.Error()}
		}
		if behind <= 0 && behindPrimary <= 0 && recv == last {
			still++
			if still >= 3 {
				return nil
			}
		} else {
			still = 0
		}
		last = recv
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(200 * time.Millisecond):
		}
	}
	return []string{fmt.Sprintf("the standby had not caught up %s after the workload (%d bytes received and not replayed, %d behind the primary's last reported end): the replayed figures miss the tail", ReplayBound, max(behind, 0), max(behindPrimary, 0))}
}

// TailBound is how long a window on a primary waits, after the workload, for
// each streaming standby to be sent (and to replay) the WAL written so far.
var TailBound = 10 * time.Second

// awaitStandbys waits until every streaming standby has been sent and has
// replayed the primary's flushed WAL, so the window's shipped bytes include
// the workload's tail. A standby still behind at the bound is named.
func awaitStandbys(ctx context.Context, db *sql.DB, s dialects.Server) []string {
	return dialects.AwaitCopies(ctx, TailBound, "standbys", "their shipped bytes miss the tail", func(ctx context.Context) ([]string, error) {
		return standbysBehind(ctx, db, s)
	})
}

// standbysBehind names the streaming standbys not yet sent or not yet
// replayed the primary's flushed WAL; an error when pg_stat_replication
// cannot be read (the collector says so).
func standbysBehind(ctx context.Context, db *sql.DB, s dialects.Server) ([]string, error) {
	rows, err := queries.Query(ctx, db, Name, "replication_tail", s.VersionNum)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var late []string
	for rows.Next() {
		var name string
		var unsent, unreplayed int64
		if err := rows.Scan(&name, &unsent, &unreplayed); err != nil {
			return nil, err
		}
		if unsent > 0 || unreplayed > 0 {
			late = append(late, fmt.Sprintf("%s (%d bytes not sent, %d not replayed)", name, max(unsent, 0), max(unreplayed, 0)))
		}
	}
	return late, rows.Err()
}
