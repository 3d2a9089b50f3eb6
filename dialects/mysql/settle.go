package mysql

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/queries"
)

// SettleTimeout bounds the wait for purge after the workload.
var SettleTimeout = 60 * time.Second

// settlePoll is how often the purge backlog is read while waiting.
var settlePoll = 200 * time.Millisecond

// purgeStall is how long the backlog may stay above its lowest reading
// before the wait gives up on it.
var purgeStall = 5 * time.Second

// settleDeadline is SettleTimeout from now, but never more than half of
// what the caller's context has left: the after snapshot that follows
// needs the rest.
func settleDeadline(ctx context.Context, now time.Time) time.Time {
	d := now.Add(SettleTimeout)
	if cd, ok := ctx.Deadline(); ok {
		if half := now.Add(cd.Sub(now) / 2); half.Before(d) {
			d = half
		}
	}
	return d
}

// The history level at BeforeMeasure is kept per *sql.DB: the Settler
// interface passes the same handle to BeforeMeasure and Settle of one
// measurement, the dialect value is shared by every measurement of the
// process, and two measurements running at once hold different handles.
var (
	baseMu   sync.Mutex
	baseline = map[*sql.DB]int64{}
)

// HistoryLength reads InnoDB's purge backlog (undo logs not yet purged) and
// names where it came from: MariaDB's Innodb_history_list_length status
// variable (no privilege), INNODB_METRICS trx_rseg_history_len (PROCESS), or
// SHOW ENGINE INNODB STATUS (PROCESS).
func HistoryLength(ctx context.Context, q dialects.Querier, s dialects.Server) (int64, string, error) {
	v := s.VersionNum
	var errs []error
	if s.Has(CapHistoryStatus) {
		var name string
		var n int64
		err := queries.QueryRow(ctx, q, Name, "history_len_status", v).Scan(&name, &n)
		if err == nil {
			return n, "Innodb_history_list_length", nil
		}
		errs = append(errs, err)
	}
	if s.Has(CapInnodbMetrics) {
		var n int64
		var on bool
		err := queries.QueryRow(ctx, q, Name, "history_len_metrics", v).Scan(&n, &on)
		if err == nil && on {
			return n, "INNODB_METRICS trx_rseg_history_len", nil
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	var typ, name, status string
	err := queries.QueryRow(ctx, q, Name, "engine_innodb_status", v).Scan(&typ, &name, &status)
	if err == nil {
		if n, ok := parseHistoryLength(status); ok {
			return n, "SHOW ENGINE INNODB STATUS", nil
		}
		err = errors.New("SHOW ENGINE INNODB STATUS has no \"History list length\" line")
	}
	if pe := AsPrivilegeError(err, s, "PROCESS", "GRANT PROCESS ON *.* TO "+s.Prop(PropHostUser)); pe != nil {
		err = pe
	}
	errs = append(errs, err)
	return 0, "", errors.Join(errs...)
}

func parseHistoryLength(status string) (int64, bool) {
	sc := bufio.NewScanner(strings.NewReader(status))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "History list length"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(rest), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// BeforeMeasure records the purge backlog the window starts with, so Settle
// waits for the workload's own undo to be purged and no longer.
func (Dialect) BeforeMeasure(ctx context.Context, db *sql.DB, s dialects.Server) []string {
	var notes []string
	if s.Has(CapReplica) {
		// The window starts with the replica caught up: what it applies
		// inside is then the primary's writes of the window, not a backlog.
		notes = awaitReplica(ctx, db, s)
	}
	n, _, err := HistoryLength(ctx, db, s)
	if err != nil {
		return append(notes, "cannot read InnoDB's purge backlog (history list length), so the \"after\" snapshot will not wait for purge: "+err.Error())
	}
	baseMu.Lock()
	baseline[db] = n
	baseMu.Unlock()
	return notes
}

// Settle waits until purge has removed what the workload's transactions left
// (history list length back to its level at BeforeMeasure), so the redo,
// page merges and row-lock waits of purging the workload's deletes and
// old versions land inside the window instead of in the next one.
func (Dialect) Settle(ctx context.Context, db *sql.DB, s dialects.Server, _ []string) []string {
	var notes []string
	if s.Has(CapReplica) {
		// Applied first: the applier's undo is what purge then removes.
		notes = awaitReplica(ctx, db, s)
	}
	return append(notes, settlePurge(ctx, db, s)...)
}

func settlePurge(ctx context.Context, db *sql.DB, s dialects.Server) []string {
	baseMu.Lock()
	base, ok := baseline[db]
	delete(baseline, db)
	baseMu.Unlock()
	if !ok {
		return nil // BeforeMeasure already said why there is no baseline
	}
	deadline := settleDeadline(ctx, time.Now())
	var n int64
	var src string
	best, bestAt := int64(-1), time.Now()
	for {
		var err error
		n, src, err = HistoryLength(ctx, db, s)
		if err != nil {
			return []string{"waiting for InnoDB purge: " + err.Error()}
		}
		if n <= base {
			return nil
		}
		if best < 0 || n < best {
			best, bestAt = n, time.Now()
		}
		// A transaction left open by another session holds purge back
		// for as long as it stays open: waiting the whole bound for it
		// only spent the time the after snapshot needs.
		if time.Since(bestAt) > purgeStall {
			return []string{fmt.Sprintf("InnoDB purge made no progress for %s after the workload (%s %d, %d before the window; a transaction open in another session holds it back?): the purge of the rest lands outside the measurement", purgeStall, src, n, base)}
		}
		if time.Now().After(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return []string{"interrupted while waiting for InnoDB purge"}
		case <-time.After(settlePoll):
		}
	}
	return []string{fmt.Sprintf("InnoDB purge had not caught up %s after the workload (%s %d, %d before the window): the purge of the rest lands outside the measurement", SettleTimeout, src, n, base)}
}
