package measure

import (
	"fmt"
	"sort"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/result"
)

// xactOverhead is what reading each operation's transaction id costs, as
// measured (README, "Per operation"): one read-only statement appended to
// the operation's pipelined statements, no extra round trip.
const xactOverhead = "one read-only statement per operation (pg_current_xact_id_if_assigned(), appended to the operation's own pipelined round trip; it assigns no id and writes no log)"

// operationCosts turns the window's log split by operation into the run's
// section, and holds its sum against the window's in-scope log: a split that
// lost or counted a record twice is said, not shown as exact.
func operationCosts(d *collectors.Delta, run *result.Run) *result.OperationCosts {
	ol := d.Operations
	if ol == nil {
		return nil
	}
	counts := map[string]int64{}
	for k, n := range run.Operations {
		counts[result.Singular(k)] = n
	}
	oc := &result.OperationCosts{Source: ol.Source, Overhead: xactOverhead}
	var sum float64
	for _, name := range sortedOps(ol) {
		c := opCost(name, ol.Ops[name], ol.Source)
		c.Count = counts[name]
		sum += ol.Ops[name].Total.Bytes
		oc.Operations = append(oc.Operations, c)
	}
	sort.SliceStable(oc.Operations, func(i, j int) bool {
		return oc.Operations[i].Metrics[result.LogBytes.Name].V() > oc.Operations[j].Metrics[result.LogBytes.Name].V()
	})
	if ol.Unattributed.Total.Records > 0 {
		u := opCost("", &ol.Unattributed, ol.Source)
		oc.Unattributed = &u
		sum += ol.Unattributed.Total.Bytes
	}
	oc.LogBytes = result.Metric{Value: &sum, Exactness: result.Exact, Source: ol.Source + ": sum of the operations' and the unattributed in-scope records"}
	oc.InScope = run.Database[result.LogBytesInScope.Name]
	if !oc.InScope.OK() || oc.InScope.V() != sum {
		oc.LogBytes.Exactness = result.Approx
		oc.LogBytes.Note = fmt.Sprintf("the operations sum to %.0f B, the window's in-scope log is %s: the split is not exact", sum, describe(oc.InScope))
		run.Warnings = append(run.Warnings, "per-operation log: "+oc.LogBytes.Note)
		for i := range oc.Operations {
			for k, m := range oc.Operations[i].Metrics {
				m.Exactness = result.Approx
				oc.Operations[i].Metrics[k] = m
			}
		}
	}
	return oc
}

func describe(m result.Metric) string {
	if m.OK() {
		return fmt.Sprintf("%.0f B", m.V())
	}
	return "unknown"
}

func sortedOps(ol *collectors.OperationLog) []string {
	names := make([]string, 0, len(ol.Ops))
	for n := range ol.Ops {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func opCost(name string, o *collectors.OpLog, src string) result.OperationCost {
	who := fmt.Sprintf("records of the %d transactions of the %s operations (each read its transaction id)", o.Xacts, name)
	if name == "" {
		who = "in-scope records of no transaction the workload named (no transaction id: on-access pruning, vacuum; aborted attempts; other sessions)"
	}
	figs := func(f collectors.LogFigures, what string) map[string]result.Metric {
		m := func(v float64, col string) result.Metric {
			return result.Metric{Value: &v, Exactness: result.Exact, Source: src + ": " + col + " of the " + what}
		}
		return map[string]result.Metric{
			result.LogBytes.Name:    m(f.Bytes, "sum(record_length)"),
			result.LogRecords.Name:  m(f.Records, "count"),
			result.FpiBytes.Name:    m(f.FpiBytes, "sum(fpi_length)"),
			result.FpiCount.Name:    m(f.Fpis, "records with a full-page image"),
			result.LeafInserts.Name: m(f.LeafInserts, "Btree INSERT_LEAF + INSERT_POST + level-0 splits"),
		}
	}
	c := result.OperationCost{Operation: name, Transactions: o.Xacts, Metrics: figs(o.Total, who)}
	for ref, f := range o.Objects {
		what := who + " whose first block is " + ref.Object
		if ref.Object == "" {
			what = who + " on no relation (commit records)"
		}
		ms := figs(*f, what)
		if ref.Level != collectors.Index {
			delete(ms, result.LeafInserts.Name)
		}
		c.Objects = append(c.Objects, result.OperationObject{Level: string(ref.Level), Name: ref.Object, Metrics: ms})
	}
	sort.Slice(c.Objects, func(i, j int) bool {
		a, b := c.Objects[i].Metrics[result.LogBytes.Name].V(), c.Objects[j].Metrics[result.LogBytes.Name].V()
		if a != b {
			return a > b
		}
		return c.Objects[i].Name < c.Objects[j].Name
	})
	return c
}

// operationPerOp adds each operation's own log, per operation, to
// per_operation (where log_bytes is the whole window's divided by the count).
func operationPerOp(run *result.Run, out map[string]map[string]float64) {
	if run.OperationCosts == nil {
		return
	}
	for _, c := range run.OperationCosts.Operations {
		m := out[c.Operation]
		if m == nil || c.Count <= 0 {
			continue
		}
		m[result.OperationLogBytes.Name] = c.Metrics[result.LogBytes.Name].V() / float64(c.Count)
		m[result.OperationLogRecords.Name] = c.Metrics[result.LogRecords.Name].V() / float64(c.Count)
	}
}
