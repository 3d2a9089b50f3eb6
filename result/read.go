package result

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/writeamp/writeamp/internal/safeio"
)

// ErrSnapshot marks a snapshot file given where a result was expected.
var ErrSnapshot = errors.New("a writeamp snapshot, not a result")

// Read parses a result file, refusing what is not a writeamp result: a file
// that is not regular or is over safeio.MaxInput, another schema version, and
// numbers no measurement produces (a negative counter, hand-edited).
func Read(path string) (*Result, error) {
	data, err := safeio.ReadFile(path, safeio.MaxInput)
	if err != nil {
		return nil, err
	}
	var r Result
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: not a writeamp result JSON: %w", path, err)
	}
	var kind struct {
		Kind string `json:"kind"`
	}
	if json.Unmarshal(data, &kind) == nil && kind.Kind == "writeamp-snapshot" {
		return nil, fmt.Errorf("%s: %w", path, ErrSnapshot)
	}
	if r.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("%s: schema_version %d, this writeamp reads %d", path, r.SchemaVersion, SchemaVersion)
	}
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

// Validate refuses numbers a measurement cannot produce: negative counts,
// operations, latencies or times, and a negative value of any metric the
// catalogue does not mark as one that may fall (a size). The error names
// the run and the field.
func (r *Result) Validate() error {
	for i, run := range r.Runs {
		where := fmt.Sprintf("runs[%d] (%s)", i, run.Variant)
		bad := func(field string, v float64) error {
			return fmt.Errorf("%s: %s is %v: a count cannot be negative (was the file edited?)", where, field, v)
		}
		for _, k := range sortedKeys(run.Operations) {
			if run.Operations[k] < 0 {
				return bad("operations."+k, float64(run.Operations[k]))
			}
		}
		for _, k := range sortedKeys(run.Errors) {
			if run.Errors[k] < 0 {
				return bad("errors."+k, float64(run.Errors[k]))
			}
		}
		if run.ElapsedSeconds < 0 || math.IsNaN(run.ElapsedSeconds) || math.IsInf(run.ElapsedSeconds, 0) {
			return bad("elapsed_seconds", run.ElapsedSeconds)
		}
		if run.Throughput < 0 {
			return bad("operations_per_second", run.Throughput)
		}
		for _, k := range sortedKeys(run.LatencyMS) {
			l := run.LatencyMS[k]
			for name, v := range map[string]float64{"count": float64(l.Count), "p50": l.P50, "p95": l.P95, "p99": l.P99, "max": l.Max, "mean": l.Mean} {
				if v < 0 {
					return bad("latency_ms."+k+"."+name, v)
				}
			}
		}
		if err := metrics(run.Database, "database", bad); err != nil {
			return err
		}
		for _, o := range run.Tables {
			if err := metrics(o.Metrics, "tables["+o.Name+"]", bad); err != nil {
				return err
			}
		}
		for _, o := range run.Indexes {
			if err := metrics(o.Metrics, "indexes["+o.Name+"]", bad); err != nil {
				return err
			}
		}
		if err := run.Samples.validate(where); err != nil {
			return err
		}
		for _, op := range sortedKeys(run.PerOperation) {
			m := run.PerOperation[op]
			for _, k := range sortedKeys(m) {
				if m[k] < 0 && !MayBeNegative(k) {
					return bad("per_operation."+op+"."+k, m[k])
				}
			}
		}
	}
	return nil
}

func metrics(ms map[string]Metric, prefix string, bad func(string, float64) error) error {
	for _, k := range sortedKeys(ms) {
		m := ms[k]
		if m.Value == nil {
			continue
		}
		v := *m.Value
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return bad(prefix+"."+k, v)
		}
		if v < 0 && !MayBeNegative(k) {
			return bad(prefix+"."+k, v)
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
