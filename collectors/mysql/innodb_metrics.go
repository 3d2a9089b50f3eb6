package mysql

import (
	"context"
	"fmt"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// InnodbMetrics reads InnoDB's page split and merge counters and the
// transaction ends from INFORMATION_SCHEMA.INNODB_METRICS (needs PROCESS).
// They are off by default; the dialect's Instrument turns them on for the
// window when allowed. InnoDB counts them for the whole server.
type InnodbMetrics struct{}

func (InnodbMetrics) Name() string { return "innodb_metrics" }

// Supports names the real cause when nothing can be read: no PROCESS, or
// counters that are off, which is a privilege problem only when this login
// may not turn them on.
func (InnodbMetrics) Supports(s dialects.Server) error {
	if !s.Has(my.CapInnodbMetrics) {
		return &dialects.PrivilegeError{Privilege: "PROCESS", Grant: "GRANT PROCESS ON *.* TO " + s.Prop(my.PropHostUser),
			Err: fmt.Errorf("%w: INFORMATION_SCHEMA.INNODB_METRICS (page splits, merges, transaction counts) needs it", dialects.ErrUnsupported)}
	}
	if s.Has(my.CapIndexMonitor) || s.Has(my.CapTrxMonitor) {
		return nil
	}
	why := my.MonitorReason(s, my.Monitors())
	if ok, probed := s.Caps[my.CapMonitorAdmin]; probed && !ok {
		return &dialects.PrivilegeError{Privilege: my.MonitorPrivilege(s),
			Grant: fmt.Sprintf("GRANT %s ON *.* TO %s", my.MonitorPrivilege(s), s.Prop(my.PropHostUser)),
			Err:   &dialects.Unavailable{Reason: why}}
	}
	return &dialects.Unavailable{Reason: why}
}

var metricNames = map[string]*result.Info{
	"index_page_splits":           result.PageSplits,
	"index_page_merge_attempts":   result.PageMergeAttempts,
	"index_page_merge_successful": result.PageMerges,
}

// commitRule is the Source of transactions_committed.
const commitRule = "derived: INNODB_METRICS trx_rw_commits + trx_ro_commits + trx_nl_ro_commits - trx_rollbacks (InnoDB ends a rollback through its commit path, so each rollback is in one *_commits too; whole server)"

func (InnodbMetrics) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, _ collectors.Scope) ([]collectors.Counter, error) {
	rows, err := queries.Query(ctx, qr, my.Name, "innodb_metrics", s.VersionNum)
	if pe := my.AsPrivilegeError(err, s, "PROCESS", "GRANT PROCESS ON *.* TO "+s.Prop(my.PropHostUser)); pe != nil {
		return nil, pe
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []collectors.Counter
	var off []string
	trx := map[string]float64{}
	for rows.Next() {
		var name string
		var count float64
		var on bool
		if err := rows.Scan(&name, &count, &on); err != nil {
			return nil, err
		}
		if !on {
			// A disabled counter keeps its old value: diffing it would say zero.
			off = append(off, name)
			continue
		}
		if metric, ok := metricNames[name]; ok {
			out = append(out, collectors.NewCounter(collectors.DB, "", metric, count, result.Exact,
				"INFORMATION_SCHEMA.INNODB_METRICS "+name+" (whole server, every index)", ""))
			continue
		}
		trx[name] = count
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(trx) == len(my.TrxMonitors) {
		// Commits only grow, so the combination diffs like a counter; a
		// monitor reset lowers it and the diff calls it a reset.
		n := trx["trx_rw_commits"] + trx["trx_ro_commits"] + trx["trx_nl_ro_commits"] - trx["trx_rollbacks"]
		out = append(out, collectors.NewCounter(collectors.DB, "", result.TransactionsCommitted, n, result.Derived, commitRule, ""))
	}
	if len(out) == 0 && len(off) > 0 {
		return nil, fmt.Errorf("%w: the InnoDB monitors %v are off", dialects.ErrUnsupported, off)
	}
	return out, nil
}
