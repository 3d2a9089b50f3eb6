package sqlserver

import (
	"context"
	"strings"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	ms "github.com/writeamp/writeamp/dialects/sqlserver"
	"github.com/writeamp/writeamp/result"
)

// SysDmOsPerformanceCounters reads the log flush counters of this database
// and the instance's page splits. The "/sec" counters are cumulative totals
// despite their names (Performance Monitor divides the difference by time);
// diffing two readings gives the count in the window.
type SysDmOsPerformanceCounters struct{}

const perfCounters = "sys.dm_os_performance_counters"

func (SysDmOsPerformanceCounters) Name() string { return "sys_dm_os_performance_counters" }

func (SysDmOsPerformanceCounters) Supports(s dialects.Server) error {
	if err := unsupportedVersion(s); err != nil {
		return err
	}
	return need(s, ms.CapViewServerState, ms.ServerScope)
}

func (SysDmOsPerformanceCounters) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, _ collectors.Scope) ([]collectors.Counter, error) {
	rows, err := qr.QueryContext(ctx, q("sys_dm_os_performance_counters", s))
	if err != nil {
		return nil, ms.AsPrivilegeError(err, s, ms.ServerScope)
	}
	defer rows.Close()
	id := startIdentity(s)
	var out []collectors.Counter
	for rows.Next() {
		var object, name, instance string
		var value int64
		if err := rows.Scan(&object, &name, &instance, &value); err != nil {
			return nil, err
		}
		src := perfCounters + " '" + strings.TrimSpace(name) + "'"
		v := float64(value)
		switch strings.TrimSpace(name) {
		case "Log Bytes Flushed/sec":
			out = append(out, counter(collectors.DB, "", "log_bytes_flushed", v, result.Exact, src+" (this database)", id))
		case "Log Flushes/sec":
			out = append(out, counter(collectors.DB, "", "log_flushes", v, result.Exact, src+" (this database)", id))
		case "Page Splits/sec":
			c := counter(collectors.DB, "", "page_splits", v, result.Approx, src+" (whole instance)", id)
			c.Note = "every database of the instance, and it counts new pages at the end of an index as splits too"
			out = append(out, c)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, ms.AsPrivilegeError(err, s, ms.ServerScope)
	}
	return out, nil
}
