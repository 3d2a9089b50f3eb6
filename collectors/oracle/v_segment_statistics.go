package oracle

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	ora "github.com/writeamp/writeamp/dialects/oracle"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// VSegmentStatistics reads per-segment statistics of the tables and indexes
// in scope, each under the name of what it counts. Oracle has no per-index
// leaf insert counter: 'db block changes' is the nearest proxy and is
// reported as block_changes, never as leaf_inserts. Segments restart from
// zero when their DATAOBJ# changes (TRUNCATE, MOVE, REBUILD): the identity
// carries it, so collectors.Diff reports a reset.
type VSegmentStatistics struct{}

func (VSegmentStatistics) Name() string { return "v_segment_statistics" }

func (VSegmentStatistics) Supports(s dialects.Server) error {
	if err := unsupportedVersion(s); err != nil {
		return err
	}
	if ok, probed := s.Caps[ora.CapStatisticsLevel]; probed && !ok {
		return s.Unsupported(ora.CapStatisticsLevel)
	}
	return nil
}

// segmentMetrics maps STATISTIC_NAME to the metric and its source.
var segmentMetrics = map[string]*result.Info{
	"db block changes":  result.BlockChanges,
	"physical writes":   result.PhysicalWrites,
	"buffer busy waits": result.BufferBusyWaits,
	"ITL waits":         result.ItlWaits,
	"row lock waits":    result.RowLockWaits,
}

func (VSegmentStatistics) Collect(ctx context.Context, qr dialects.Querier, s dialects.Server, sc collectors.Scope) ([]collectors.Counter, error) {
	sampled, sampledErr := segstatSampled(ctx, qr, s)
	owners := ownerArg(sc)
	rows, err := queries.Query(ctx, qr, ora.Name, "v_segment_statistics", s.VersionNum, owners, owners)
	if err != nil {
		return nil, ora.AsPrivilegeError(err, s, "v_$segment_statistics")
	}
	defer rows.Close()
	type obj struct {
		level  collectors.Level
		name   string
		segs   map[string]bool
		values map[string]float64
	}
	objs := map[string]*obj{}
	var order []string
	for rows.Next() {
		var owner, name, typ, stat string
		var sub, tableOwner, table, indexType sql.NullString
		var dataObj, value sql.NullInt64
		if err := rows.Scan(&owner, &name, &typ, &sub, &dataObj, &stat, &value, &tableOwner, &table, &indexType); err != nil {
			return nil, err
		}
		metric, ok := segmentMetrics[stat]
		if !ok {
			continue
		}
		level, tblOwner, tbl := collectors.Table, owner, name
		if strings.HasPrefix(typ, "INDEX") {
			level, tblOwner, tbl = collectors.Index, tableOwner.String, table.String
			if !table.Valid || lobIndex(indexType.String) {
				continue // an index the login cannot see in ALL_INDEXES (no table to scope it by), or a LOB's own
			}
		}
		if !sc.InScope(tblOwner, tbl) {
			continue
		}
		k := string(level) + "/" + collectors.FQN(owner, name)
		o := objs[k]
		if o == nil {
			o = &obj{level: level, name: collectors.FQN(owner, name), segs: map[string]bool{}, values: map[string]float64{}}
			objs[k] = o
			order = append(order, k)
		}
		seg := sub.String
		if seg == "" {
			seg = "-"
		}
		o.segs[fmt.Sprintf("%s:%d", seg, dataObj.Int64)] = true
		o.values[metric.Name] += float64(value.Int64)
	}
	if err := rows.Err(); err != nil {
		return nil, ora.AsPrivilegeError(err, s, "v_$segment_statistics")
	}
	var out []collectors.Counter
	for _, k := range order {
		o := objs[k]
		segs := make([]string, 0, len(o.segs))
		for sg := range o.segs {
			segs = append(segs, sg)
		}
		sort.Strings(segs)
		id := "dataobj=" + strings.Join(segs, ",")
		for _, stat := range []string{"db block changes", "physical writes", "buffer busy waits", "ITL waits", "row lock waits"} {
			m := segmentMetrics[stat]
			v, ok := o.values[m.Name]
			if !ok {
				continue
			}
			c := collectors.NewCounter(o.level, o.name, m, v, result.Exact, "V$SEGMENT_STATISTICS '"+stat+"'", id)
			if m == result.BlockChanges && o.level == collectors.Index {
				c.Note = "block changes of the index segment: the nearest Oracle has to leaf writes, not an insert count"
			}
			switch smp, known := sampled[stat]; {
			case sampledErr != nil:
				c.Exactness = result.Approx
				c.Note = joinNote(c.Note, "whether Oracle samples this statistic is unknown: V$SEGSTAT_NAME could not be read ("+sampledErr.Error()+")")
			case !known:
				c.Exactness = result.Approx
				c.Note = joinNote(c.Note, "V$SEGSTAT_NAME does not list this statistic, so whether it is sampled is unknown")
			case smp:
				c.Exactness = result.Approx
				c.Note = joinNote(c.Note, "Oracle collects this statistic by sampling (V$SEGSTAT_NAME.SAMPLED = 'YES'): an estimate, not a count")
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// segstatSampled reads which segment statistics Oracle samples
// (V$SEGSTAT_NAME.SAMPLED), rather than assuming: a sampled one is an
// estimate, an unsampled one a count.
func segstatSampled(ctx context.Context, qr dialects.Querier, s dialects.Server) (map[string]bool, error) {
	rows, err := queries.Query(ctx, qr, ora.Name, "v_segstat_name", s.VersionNum)
	if err != nil {
		return nil, ora.AsPrivilegeError(err, s, "v_$segstat_name")
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var name string
		var sampled sql.NullString
		if err := rows.Scan(&name, &sampled); err != nil {
			return nil, err
		}
		out[name] = strings.EqualFold(strings.TrimSpace(sampled.String), "YES")
	}
	return out, rows.Err()
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
