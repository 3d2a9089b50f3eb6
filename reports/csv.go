package reports

import (
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/writeamp/writeamp/result"
)

// CSVHeader are the columns of the csv format: one row per object and
// metric, so a spreadsheet can pivot on any of them.
// The value is the exact number; unit says what it counts (the catalogue's
// unit: count, bytes, pages, ms, ratio; per_operation rows "bytes per
// refresh"), added as the last column so existing readers keep their columns.
// part_of names the object whose figures include this one's (a partition's
// partitioned table, a TOAST table's table), so a sum over a level can leave
// parts out: their whole counts them already.
var CSVHeader = []string{"run", "label", "concurrency", "level", "schema", "table", "object", "metric", "value", "exactness", "source", "note", "unit", "part_of"}

// CSV writes every number of every run, hidden ones included: a spreadsheet
// user filters for themselves. Figures the driver measured (elapsed,
// throughput, latency) are level "run"; per-operation figures "per_operation".
func CSV(w io.Writer, res *result.Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	c := FromResult(res)
	if err := csvFindings(cw, c); err != nil {
		return err
	}
	if err := csvClaims(cw, c); err != nil {
		return err
	}
	for i := range res.Runs {
		r := &res.Runs[i]
		label := r.Label
		if label == "" {
			label = r.Variant
		}
		conc := ""
		if r.Concurrency > 0 {
			conc = strconv.Itoa(r.Concurrency)
		}
		row := func(level, schema, table, object, metric, value string, e result.Exactness, source, note, unit, partOf string) error {
			return cw.Write([]string{strconv.Itoa(i + 1), label, conc, level, schema, table, object, metric, value, string(e), source, note, unit, partOf})
		}
		metricRows := func(level, schema, table, object, partOf string, ms map[string]result.Metric) error {
			for _, name := range slices.Sorted(maps.Keys(ms)) {
				m := ms[name]
				v := ""
				if m.OK() {
					v = num(m.V())
				}
				if err := row(level, schema, table, object, name, v, m.Exactness, m.Source, m.Note, string(info(name).Unit), partOf); err != nil {
					return err
				}
			}
			return nil
		}
		driver := "writeamp workload driver"
		if len(r.Command) > 0 {
			driver = "writeamp measure (wall clock of the command; counts from --operations)"
		}
		if err := row("run", "", "", "", "elapsed_seconds", num(r.ElapsedSeconds), result.Exact, driver, "", "s", ""); err != nil {
			return err
		}
		if r.ExitCode != nil {
			if err := row("run", "", "", "", "exit_code", strconv.Itoa(*r.ExitCode), result.Exact, "the wrapped command", "", "", ""); err != nil {
				return err
			}
		}
		for _, op := range slices.Sorted(maps.Keys(r.Operations)) {
			if err := row("run", "", "", op, "operations", num(float64(r.Operations[op])), result.Exact, driver, "", string(result.Count), ""); err != nil {
				return err
			}
		}
		if r.Throughput > 0 {
			if err := row("run", "", "", "", "operations_per_second", num(r.Throughput), result.Derived, "derived: operations / elapsed", "", "per s", ""); err != nil {
				return err
			}
		}
		for _, op := range slices.Sorted(maps.Keys(r.Errors)) {
			if err := row("run", "", "", op, "errors", num(float64(r.Errors[op])), result.Exact, driver, "", string(result.Count), ""); err != nil {
				return err
			}
		}
		for _, op := range slices.Sorted(maps.Keys(r.LatencyMS)) {
			l := r.LatencyMS[op]
			for _, p := range []struct {
				name string
				v    float64
			}{{"latency_ms_p50", l.P50}, {"latency_ms_p95", l.P95}, {"latency_ms_p99", l.P99}, {"latency_ms_max", l.Max}, {"latency_ms_mean", l.Mean}} {
				if err := row("run", "", "", op, p.name, num(p.v), result.Approx, "HdrHistogram of the driver's timings", "3 significant digits", string(result.Millis), ""); err != nil {
					return err
				}
			}
		}
		if err := metricRows("database", "", "", "", "", r.Database); err != nil {
			return err
		}
		for _, t := range r.Tables {
			if err := metricRows("table", t.Schema, t.Name, t.Name, t.PartOf(), t.Metrics); err != nil {
				return err
			}
		}
		for _, ix := range r.Indexes {
			if err := metricRows("index", ix.Schema, ix.Table, ix.Name, ix.PartOf(), ix.Metrics); err != nil {
				return err
			}
		}
		ops := make([]string, 0, len(r.PerOperation))
		for op := range r.PerOperation {
			ops = append(ops, op)
		}
		sort.Strings(ops)
		for _, op := range ops {
			for _, name := range slices.Sorted(maps.Keys(r.PerOperation[op])) {
				src := fmt.Sprintf("derived: database %s / %s count", name, op)
				if err := row("per_operation", "", "", op, name, num(r.PerOperation[op][name]), exactnessOf(r.Database[name]), src, "", string(info(name).Unit)+" per "+Singular(op), ""); err != nil {
					return err
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvFindings are the first rows: level "finding", run = the rank, label =
// the run the finding is about (the last one of a comparison), value = its
// figure after (or the single run's cost), source = the rule, note = the
// sentence.
func csvFindings(cw *csv.Writer, c *Comparison) error {
	tableOf := map[string]string{} // once: a scan per finding was quadratic
	for _, s := range c.Sections {
		if s.Kind == "index" {
			tableOf[s.Object] = s.Table
		}
	}
	for _, f := range c.Findings {
		v := f.After
		if f.Value != nil {
			v = f.Value
		}
		val, label := "", f.To
		if v != nil {
			val = num(*v)
		}
		if label == "" && len(c.Columns) > 0 {
			label = c.Columns[0].Label
		}
		table := ""
		if f.Level == "index" && len(f.Objects) > 0 {
			table = tableOf[f.Objects[0]]
		}
		if err := cw.Write([]string{strconv.Itoa(f.Rank), label, "", "finding", "", table, f.Object, f.Metric, val, string(f.Exactness), f.Rule, f.Text, findingUnit(f), ""}); err != nil {
			return err
		}
	}
	return nil
}

// findingUnit is what a finding's value counts: the metric's unit, per
// operation when the finding compares per-operation values.
func findingUnit(f result.Finding) string {
	switch {
	case f.Metric == "":
		return ""
	case f.Metric == result.DriverLatency.Name:
		return string(result.DriverLatency.Unit)
	case strings.HasPrefix(f.Unit, "per "):
		return string(info(f.Metric).Unit) + " " + f.Unit
	}
	return string(info(f.Metric).Unit)
}

// exactnessOf a number divided by a count: derived at best.
func exactnessOf(m result.Metric) result.Exactness {
	return result.Weaker(result.Derived, m.Exactness)
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
