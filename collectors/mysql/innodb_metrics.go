package mysql

import (
	"context"
	"fmt"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/result"
)

// InnodbMetrics reads InnoDB's page split and merge counters from
// INFORMATION_SCHEMA.INNODB_METRICS (needs PROCESS). They are off by default;
// the dialect's Instrument turns module_index on for the window when allowed.
// InnoDB counts them for the whole server, not per index.
type InnodbMetrics struct{}

func (InnodbMetrics) Name() string { return "innodb_metrics" }

func (InnodbMetrics) Supports(s dialects.Server) error {
	if !s.Has(my.CapInnodbMetrics) {
		return &dialects.PrivilegeError{Privilege: "PROCESS", Grant: "GRANT PROCESS ON *.* TO " + s.Prop(my.PropHostUser),
			Err: fmt.Errorf("%w: INFORMATION_SCHEMA.INNODB_METRICS (page splits and merges) needs it", dialects.ErrUnsupported)}
	}
	if !s.Has(my.CapIndexMonitor) {
		return &dialects.PrivilegeError{Privilege: my.MonitorPrivilege(s),
			Grant: fmt.Sprintf("GRANT %s ON *.* TO %s", my.MonitorPrivilege(s), s.Prop(my.PropHostUser)),
			Err: fmt.Errorf("%w: the InnoDB monitor module_index (page splits and merges) is off; a measured run turns it on for its window when permitted, or run SET GLOBAL innodb_monitor_enable = 'module_index'",
				dialects.ErrUnsupported)}
	}
	return nil
}

var metricNames = map[string]string{
	"index_page_splits":           "page_splits",
	"index_page_merge_attempts":   "page_merge_attempts",
	"index_page_merge_successful": "page_merges",
}

func (InnodbMetrics) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, _ collectors.Scope) ([]collectors.Counter, error) {
	rows, err := qr.QueryContext(ctx, q("innodb_metrics", s))
	if pe := my.AsPrivilegeError(err, s, "PROCESS", "GRANT PROCESS ON *.* TO "+s.Prop(my.PropHostUser)); pe != nil {
		return nil, pe
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []collectors.Counter
	var off []string
	for rows.Next() {
		var name string
		var count float64
		var on bool
		if err := rows.Scan(&name, &count, &on); err != nil {
			return nil, err
		}
		metric, ok := metricNames[name]
		if !ok {
			continue
		}
		if !on {
			// A disabled counter keeps its old value: diffing it would say zero.
			off = append(off, name)
			continue
		}
		out = append(out, counter(collectors.DB, "", metric, count, result.Exact,
			"INFORMATION_SCHEMA.INNODB_METRICS "+name+" (whole server, every index)", ""))
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 && len(off) > 0 {
		return nil, fmt.Errorf("%w: the InnoDB monitors %v are off", dialects.ErrUnsupported, off)
	}
	return out, nil
}
