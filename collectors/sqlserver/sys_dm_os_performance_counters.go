package sqlserver

import (
	"context"
	"fmt"
	"sort"
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
	return need(s, ms.CapInstanceDMVs, ms.InstanceScope)
}

// perfRow is one row as the server sends it: the three name columns are
// nchar(128), blank-padded.
type perfRow struct {
	object, name, instance string
	value                  int64
}

// readPerfRows runs a sys.dm_os_performance_counters query (the snapshot's
// or the timeline's) and returns its rows with the padding trimmed.
func readPerfRows(ctx context.Context, qr dialects.Querier, text string, s dialects.Server) ([]perfRow, error) {
	rows, err := qr.QueryContext(ctx, text)
	if err != nil {
		return nil, ms.AsPrivilegeError(err, s, ms.InstanceScope)
	}
	defer rows.Close()
	var all []perfRow
	for rows.Next() {
		var r perfRow
		if err := rows.Scan(&r.object, &r.name, &r.instance, &r.value); err != nil {
			return nil, err
		}
		r.object, r.name, r.instance = trimBlanks(r.object), trimBlanks(r.name), trimBlanks(r.instance)
		all = append(all, r)
	}
	if err := rows.Err(); err != nil {
		return nil, ms.AsPrivilegeError(err, s, ms.InstanceScope)
	}
	return all, nil
}

func (SysDmOsPerformanceCounters) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, _ collectors.Scope) ([]collectors.Counter, error) {
	text, err := collectors.SQL(ms.Name, "sys_dm_os_performance_counters", s)
	if err != nil {
		return nil, err
	}
	all, err := readPerfRows(ctx, qr, text, s)
	if err != nil {
		return nil, err
	}
	id := startIdentity(s)
	var out []collectors.Counter
	for _, c := range []struct {
		counter string
		metric  *result.Info
	}{{"Log Bytes Flushed/sec", result.LogBytesFlushed}, {"Log Flushes/sec", result.LogFlushes}} {
		if cn, ok := databaseCounter(all, c.counter, s.Database); ok {
			cn.Key, cn.Identity = collectors.NewKey(collectors.DB, "", c.metric), id
			out = append(out, cn)
		}
	}
	for _, r := range all {
		if r.name == "Page Splits/sec" && strings.HasSuffix(r.object, ":Access Methods") {
			c := collectors.NewCounter(collectors.DB, "", result.PageSplits, float64(r.value), result.Approx, perfCounters+" 'Page Splits/sec' (whole instance)", id)
			c.Note = "every database of the instance, and it counts new pages at the end of an index as splits too"
			out = append(out, c)
			break
		}
	}
	return out, nil
}

// databaseCounter picks this database's row of a ":Databases" counter: the
// one named DB_NAME() when there is one, else the rows the query matched by
// the physical name's prefix (Azure SQL Database, where a suffix may follow
// the GUID). Several such rows are summed and the figure says so.
func databaseCounter(all []perfRow, counter, database string) (collectors.Counter, bool) {
	var exact, prefixed []perfRow
	for _, r := range all {
		if r.name != counter || !strings.HasSuffix(r.object, ":Databases") {
			continue
		}
		if strings.EqualFold(r.instance, database) {
			exact = append(exact, r)
		} else {
			prefixed = append(prefixed, r)
		}
	}
	src := perfCounters + " '" + counter + "'"
	switch {
	case len(exact) > 0:
		return collectors.Counter{Value: float64(exact[0].value), Exactness: result.Exact, Source: src + " (this database)"}, true
	case len(prefixed) == 1:
		return collectors.Counter{Value: float64(prefixed[0].value), Exactness: result.Exact,
			Source: src + " (this database, instance " + prefixed[0].instance + ")"}, true
	case len(prefixed) > 1:
		var sum float64
		var names []string
		for _, r := range prefixed {
			sum += float64(r.value)
			names = append(names, r.instance)
		}
		sort.Strings(names)
		return collectors.Counter{Value: sum, Exactness: result.Approx, Source: src + " (this database)",
			Note: fmt.Sprintf("summed over %d instances named after this database's physical name: %s", len(names), strings.Join(names, ", "))}, true
	}
	return collectors.Counter{}, false
}

// trimBlanks removes the padding of an nchar column.
func trimBlanks(s string) string { return strings.TrimRight(s, " ") }
