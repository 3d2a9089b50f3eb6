package measure

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/result"
	"github.com/writeamp/writeamp/workloads"
)

// unmeasured is the partial run of a window whose after snapshot could not
// be taken: the operations and latencies the driver counted, every server
// number missing with the reason.
func unmeasured(variant string, st workloads.Stats, main string, cause error) *result.Run {
	why := "the server could not be read after the workload, so no counter of the window is known: " + cause.Error()
	run := BuildRun(variant, &collectors.Delta{Values: map[collectors.Key]result.Metric{},
		Missing: []result.Missing{{Collector: "all", Reason: why}}}, st, main)
	run.Partial = true
	run.Warnings = append(run.Warnings, why)
	return run
}

// writes turns the workload's per-statement row counts into Delta.Writes.
func writes(w workloads.Workload, st workloads.Stats, sc collectors.Scope) []collectors.Write {
	ed, ok := w.(workloads.EffectDescriber)
	if !ok {
		return nil
	}
	schema := ""
	if len(sc.Schemas) > 0 {
		schema = sc.Schemas[0]
	}
	var out []collectors.Write
	for name, eff := range ed.Effects() {
		if rows, ok := st.Statements[name]; ok {
			out = append(out, collectors.Write{Statement: name, Schema: schema, Table: eff.Table, Kind: eff.Kind, Columns: eff.Columns, Rows: rows})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Statement < out[j].Statement })
	return out
}

// BuildRun turns a diffed window and the driver's counts into one run.
func BuildRun(variant string, d *collectors.Delta, st workloads.Stats, main string) *result.Run {
	run := &result.Run{
		Variant:        variant,
		Operations:     map[string]int64{},
		MainOperation:  main,
		ElapsedSeconds: st.Elapsed.Seconds(),
		Database:       map[string]result.Metric{},
		Missing:        d.Missing,
		Warnings:       d.WarningTexts(),
	}
	for _, k := range d.Resets {
		run.Resets = append(run.Resets, k.String())
	}
	for k, v := range st.Operations {
		run.Operations[k] = v
	}
	var total int64
	for _, v := range st.Operations {
		total += v
	}
	if st.Elapsed > 0 {
		run.Throughput = float64(total) / st.Elapsed.Seconds()
	}
	if len(st.Errors) > 0 {
		run.Errors = map[string]int64{}
		for k, v := range st.Errors {
			if v > 0 {
				run.Errors[k] = v
			}
		}
	}
	if st.Retries > 0 {
		run.Warnings = append(run.Warnings, fmt.Sprintf("%d operations were retried after a serialization failure or deadlock", st.Retries))
	}
	if len(st.Latency) > 0 {
		run.LatencyMS = map[string]result.Latency{}
		for k, h := range st.Latency {
			if h.Count() > 0 {
				run.LatencyMS[k] = h.Summary()
			}
		}
	}
	if d.Before != nil && d.After != nil {
		run.Window = &result.Window{Start: d.Before.TakenAt.Format(time.RFC3339Nano), End: d.After.TakenAt.Format(time.RFC3339Nano), Marks: map[string]string{}}
		for k, v := range d.Before.Marks {
			run.Window.Marks[k+"_before"] = v
		}
		for k, v := range d.After.Marks {
			run.Window.Marks[k+"_after"] = v
		}
	}
	tables := map[string]*result.Object{}
	indexes := map[string]*result.Object{}
	for _, o := range d.Objects {
		ro := &result.Object{Name: o.Name, Schema: o.Schema, Metrics: map[string]result.Metric{}}
		info := map[string]string{}
		for k, v := range o.Info {
			switch k {
			case "oid", "toast_filenodes":
			default:
				info[k] = v
			}
		}
		if len(info) > 0 {
			ro.Info = info
		}
		if o.Level == collectors.Index {
			ro.Table = o.Table
			indexes[o.FQN()] = ro
		} else {
			tables[o.FQN()] = ro
		}
	}
	for k, m := range d.Values {
		switch k.Level {
		case collectors.DB:
			run.Database[k.Metric] = m
		case collectors.Table:
			t := tables[k.Object]
			if t == nil {
				schema, name := splitFQN(k.Object)
				t = &result.Object{Name: name, Schema: schema, Metrics: map[string]result.Metric{}}
				tables[k.Object] = t
			}
			t.Metrics[k.Metric] = m
		case collectors.Index:
			ix := indexes[k.Object]
			if ix == nil {
				schema, name := splitFQN(k.Object)
				ix = &result.Object{Name: name, Schema: schema, Metrics: map[string]result.Metric{}}
				indexes[k.Object] = ix
			}
			ix.Metrics[k.Metric] = m
		}
	}
	for _, t := range tables {
		run.Tables = append(run.Tables, *t)
	}
	for _, ix := range indexes {
		run.Indexes = append(run.Indexes, *ix)
	}
	run.Sort()
	run.Statements = statementsSection(d, run)
	run.OperationCosts = operationCosts(d, run)
	workloadWarnings(run)
	run.PerOperation = PerOperation(run)
	return run
}

// workloadWarnings flags other activity inside the window that the numbers include.
func workloadWarnings(run *result.Run) {
	other, total := run.Database["log_bytes_other_objects"], run.Database["log_bytes"]
	if other.OK() && total.OK() && other.V() > 0.01*total.V() {
		where := "other tables, databases or sessions"
		if other.Note != "" {
			where = other.Note
		}
		run.Warnings = append(run.Warnings, fmt.Sprintf("%.0f%% of the log in the window was written to objects outside the measured scope (%s); see log_bytes_other_objects", 100*other.V()/total.V(), where))
	}
}

// checkpointFact states, where the window began right after a checkpoint
// (dialects.AfterCheckpoint among the warnings), how much of the window's
// log bytes were full-page images, in the warning and in the log bytes' own
// note, so every report says it beside them.
func checkpointFact(run *result.Run) {
	fact := dialects.AfterCheckpoint
	if fpi, total := run.Database[result.FpiBytes.Name], run.Database[result.LogBytes.Name]; fpi.OK() && total.OK() && total.V() > 0 {
		fact += fmt.Sprintf(" (here %.0f of the %.0f log bytes, %.0f%%, were full-page images)", fpi.V(), total.V(), 100*fpi.V()/total.V())
	}
	found := false
	for i, w := range run.Warnings {
		if w == dialects.AfterCheckpoint {
			run.Warnings[i], found = fact, true
		}
	}
	if m, ok := run.Database[result.LogBytes.Name]; ok && found {
		m.Note = joinNote(m.Note, fact)
		run.Database[result.LogBytes.Name] = m
	}
}

// PerOperation normalizes the database metrics by each operation count.
func PerOperation(run *result.Run) map[string]map[string]float64 {
	out := map[string]map[string]float64{}
	for op, n := range run.Operations {
		if n <= 0 {
			continue
		}
		m := map[string]float64{}
		for name, v := range run.Database {
			if v.OK() {
				m[name] = v.V() / float64(n)
			}
		}
		out[result.Singular(op)] = m
	}
	operationPerOp(run, out)
	if len(out) == 0 {
		return nil
	}
	return out
}

func splitFQN(s string) (string, string) {
	if i := strings.LastIndex(s, "."); i >= 0 {
		return s[:i], s[i+1:]
	}
	return "", s
}
