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
		err := q.QueryRowContext(ctx, queries.MustGet(Name, "history_len_status", v)).Scan(&name, &n)
		if err == nil {
			return n, "Innodb_history_list_length", nil
		}
		errs = append(errs, err)
	}
	if s.Has(CapInnodbMetrics) {
		var n int64
		var on bool
		err := q.QueryRowContext(ctx, queries.MustGet(Name, "history_len_metrics", v)).Scan(&n, &on)
		if err == nil && on {
			return n, "INNODB_METRICS trx_rseg_history_len", nil
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	var typ, name, status string
	err := q.QueryRowContext(ctx, queries.MustGet(Name, "engine_innodb_status", v)).Scan(&typ, &name, &status)
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
	n, _, err := HistoryLength(ctx, db, s)
	if err != nil {
		return []string{"cannot read InnoDB's purge backlog (history list length), so the \"after\" snapshot will not wait for purge: " + err.Error()}
	}
	baseMu.Lock()
	baseline[db] = n
	baseMu.Unlock()
	return nil
}

// Settle waits until purge has removed what the workload's transactions left
// (history list length back to its level at BeforeMeasure), so the redo,
// page merges and row-lock waits of purging the workload's deletes and
// old versions land inside the window instead of in the next one.
func (Dialect) Settle(ctx context.Context, db *sql.DB, s dialects.Server, _ []string) []string {
	baseMu.Lock()
	base, ok := baseline[db]
	delete(baseline, db)
	baseMu.Unlock()
	if !ok {
		return nil // BeforeMeasure already said why there is no baseline
	}
	deadline := time.Now().Add(SettleTimeout)
	var n int64
	var src string
	for {
		var err error
		n, src, err = HistoryLength(ctx, db, s)
		if err != nil {
			return []string{"waiting for InnoDB purge: " + err.Error()}
		}
		if n <= base {
			return nil
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

// monitorState reads the on/off state of every module_index counter.
func monitorState(ctx context.Context, q dialects.Querier, s dialects.Server) (map[string]bool, error) {
	rows, err := q.QueryContext(ctx, queries.MustGet(Name, "monitor_state", s.VersionNum))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var name string
		var on bool
		if err := rows.Scan(&name, &on); err != nil {
			return nil, err
		}
		out[name] = on
	}
	return out, rows.Err()
}
