package result

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// SchemaVersion of the JSON written by this package.
const SchemaVersion = 1

// Exactness says how far a number can be trusted.
type Exactness string

const (
	Exact       Exactness = "exact"       // read from a counter or log that counts exactly this
	Derived     Exactness = "derived"     // computed from other numbers by a stated rule
	Approx      Exactness = "approx"      // a proxy or estimate; the source says of what
	Unavailable Exactness = "unavailable" // the server cannot give it; Note says why
)

// Metric is one number with where it came from.
type Metric struct {
	Value     *float64  `json:"value"`
	Exactness Exactness `json:"exactness"`
	Source    string    `json:"source"`
	Note      string    `json:"note,omitempty"`
}

// V is the value, 0 when unavailable.
func (m Metric) V() float64 {
	if m.Value == nil {
		return 0
	}
	return *m.Value
}

// OK reports whether the metric carries a number.
func (m Metric) OK() bool { return m.Value != nil && m.Exactness != Unavailable }

func num(v float64) *float64 { return &v }

// New returns a metric with a value.
func New(v float64, e Exactness, source string) Metric {
	return Metric{Value: num(v), Exactness: e, Source: source}
}

// NA returns an unavailable metric with the reason.
func NA(source, why string) Metric {
	return Metric{Exactness: Unavailable, Source: source, Note: why}
}

// Weaker returns the less trustworthy of two exactness levels, for numbers
// computed from both.
func Weaker(a, b Exactness) Exactness {
	rank := map[Exactness]int{Exact: 0, Derived: 1, Approx: 2, Unavailable: 3}
	if rank[a] >= rank[b] {
		return a
	}
	return b
}

// Ratio returns a/b as a derived metric, unavailable when b is 0 or either is missing.
func Ratio(a, b Metric, source string) Metric {
	if !a.OK() || !b.OK() {
		return NA(source, "an input is unavailable")
	}
	if b.V() == 0 {
		return NA(source, "no denominator (zero)")
	}
	return Metric{Value: num(a.V() / b.V()), Exactness: Weaker(Derived, Weaker(a.Exactness, b.Exactness)), Source: source}
}

// Object is a table or an index with its metrics.
type Object struct {
	Name    string            `json:"name"`
	Schema  string            `json:"schema,omitempty"`
	Table   string            `json:"table,omitempty"` // for indexes
	Info    map[string]string `json:"info,omitempty"`  // e.g. "partial": "true", "definition": ...
	Metrics map[string]Metric `json:"metrics"`
}

// Latency percentiles in milliseconds for one operation type.
type Latency struct {
	Count int64   `json:"count"`
	P50   float64 `json:"p50"`
	P95   float64 `json:"p95"`
	P99   float64 `json:"p99"`
	Max   float64 `json:"max"`
	Mean  float64 `json:"mean"`
}

// Run is one measured variant (or one wrapped command, or one diff).
type Run struct {
	Variant string `json:"variant"`
	Label   string `json:"label,omitempty"`
	// NodeOf is set on the run of another copy of the database measured in
	// the same window (measure/snapshot --node): the variant of the run it
	// is a copy of. Such runs are not variants to compare with it.
	NodeOf         string                        `json:"node_of,omitempty"`
	Operations     map[string]int64              `json:"operations"`
	MainOperation  string                        `json:"main_operation,omitempty"`
	Errors         map[string]int64              `json:"errors,omitempty"`
	ElapsedSeconds float64                       `json:"elapsed_seconds"`
	Throughput     float64                       `json:"operations_per_second,omitempty"`
	LatencyMS      map[string]Latency            `json:"latency_ms,omitempty"`
	Database       map[string]Metric             `json:"database"`
	Tables         []Object                      `json:"tables"`
	Indexes        []Object                      `json:"indexes"`
	PerOperation   map[string]map[string]float64 `json:"per_operation,omitempty"`
	Missing        []Missing                     `json:"missing,omitempty"`
	Warnings       []string                      `json:"warnings,omitempty"`
	Partial        bool                          `json:"partial,omitempty"`
	// Resets name the counters that were reset inside the window (a
	// statistics reset, a restart, a failover, an object recreated): their
	// figures are unavailable, and check does not judge such a window.
	Resets []string `json:"counters_reset,omitempty"`
	Window *Window  `json:"window,omitempty"`
	// Concurrency is the workers the run used, set when a sweep measured
	// several levels so each run (column) says which level it is.
	Concurrency int `json:"concurrency,omitempty"`
	// Command is the wrapped command of `writeamp measure` (passwords
	// redacted) and ExitCode what it returned.
	Command  []string `json:"command,omitempty"`
	ExitCode *int     `json:"exit_code,omitempty"`
	// Writes are the rows the built-in workload's statements changed, as the
	// driver counted them.
	Writes []Write `json:"writes,omitempty"`
	// Samples are the counters read every --interval during the window.
	Samples *Samples `json:"samples,omitempty"`
	// Statements are the server's per-statement statistics over the window.
	Statements *Statements `json:"statements,omitempty"`
	// OperationCosts split the window's in-scope log by the built-in
	// workload's operations, where the log names each record's transaction.
	OperationCosts *OperationCosts `json:"operation_costs,omitempty"`
}

// Write is what one kind of DML statement of a built-in workload did in the
// window, as the driver counted it (rows affected): the truth the server's
// table counters are checked against.
type Write struct {
	Statement string   `json:"statement"`
	Schema    string   `json:"schema"`
	Table     string   `json:"table"`
	Kind      string   `json:"kind"`    // "insert", "update" or "delete"
	Columns   []string `json:"columns"` // the columns an update sets (lower case)
	Rows      int64    `json:"rows"`
}

// Window is the measured interval as the server saw it.
type Window struct {
	Start string            `json:"start"`
	End   string            `json:"end"`
	Marks map[string]string `json:"marks,omitempty"` // e.g. WAL LSNs
}

// Missing is a collector that gave nothing, why, and the statement that fixes it.
type Missing struct {
	Collector string `json:"collector"`
	Reason    string `json:"reason"`
	Fix       string `json:"fix,omitempty"`
	// Kind is what kind of cause it is (privilege, setting, version, role,
	// unreadable; empty when not known), so code never reads Reason's words.
	Kind string `json:"kind,omitempty"`
	// Lacks names the metrics the collector would have given.
	Lacks []string `json:"lacks,omitempty"`
}

// Lacking reports whether m says the named metric is missing.
func (m Missing) Lacking(metric *Info) bool { return slices.Contains(m.Lacks, metric.Name) }

// Tool identifies the producer.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Server identifies the measured server.
type Server struct {
	Dialect string `json:"dialect"`
	Version string `json:"version"`
	Flavor  string `json:"flavor"`
	Name    string `json:"name,omitempty"` // human form, e.g. "PostgreSQL 15.20"
	// Settings are server settings read when it was measured that a later
	// reading needs (PostgreSQL: checkpoint_timeout, max_wal_size, as SHOW
	// prints them); absent in older results.
	Settings map[string]string `json:"settings,omitempty"`
}

// Workload names what ran and with which parameters.
type Workload struct {
	Name   string         `json:"name"`
	Params map[string]any `json:"params,omitempty"`
	// Assumptions are the modelling choices behind the workload that its
	// sources leave open (added in schema_version 1; absent before).
	Assumptions []string `json:"assumptions,omitempty"`
	// Mixed: a comparison of results that ran different workloads or
	// parameters (Name then joins theirs), so no two runs did provably the
	// same work.
	Mixed bool `json:"mixed,omitempty"`
}

// Result is the whole document.
type Result struct {
	SchemaVersion int      `json:"schema_version"`
	Tool          Tool     `json:"tool"`
	Server        Server   `json:"server"`
	Workload      Workload `json:"workload"`
	// Findings lead every report: computed from the runs (reports.Findings),
	// refreshed whenever a result is written.
	Findings []Finding `json:"findings,omitempty"`
	// Changes are the change column of the reports (two or more runs).
	Changes []Change `json:"changes,omitempty"`
	// Claims are PR #51904's claims next to what a comparison of the
	// refresh-token variants measured (reports.Claims).
	Claims []Claim `json:"claims,omitempty"`
	Runs   []Run   `json:"runs"`
	// Migration is check's window around applying the migration itself:
	// its duration (database.seconds), log, size added and rows rewritten.
	Migration *Run     `json:"migration,omitempty"`
	CreatedAt string   `json:"created_at,omitempty"`
	Notes     []string `json:"notes,omitempty"`
}

// Table returns the named table of a run (case-insensitive, schema ignored).
func (r *Run) Table(name string) *Object { return find(r.Tables, name) }

// Index returns the named index of a run.
func (r *Run) Index(name string) *Object { return find(r.Indexes, name) }

func find(objs []Object, name string) *Object {
	for i := range objs {
		if strings.EqualFold(objs[i].Name, name) {
			return &objs[i]
		}
	}
	return nil
}

// Main returns the count of the run's main operation (e.g. refreshes), 0 if none.
func (r *Run) Main() (string, int64) {
	if r.MainOperation == "" {
		return "", 0
	}
	return r.MainOperation, r.Operations[r.MainOperation]
}

// Sort orders tables and indexes by name so output is stable.
func (r *Run) Sort() {
	sort.Slice(r.Tables, func(i, j int) bool { return r.Tables[i].Name < r.Tables[j].Name })
	sort.Slice(r.Indexes, func(i, j int) bool {
		if r.Indexes[i].Table != r.Indexes[j].Table {
			return r.Indexes[i].Table < r.Indexes[j].Table
		}
		return r.Indexes[i].Name < r.Indexes[j].Name
	})
}

// MarshalJSON keeps NaN and Inf out of the document (they are not JSON).
func (m Metric) MarshalJSON() ([]byte, error) {
	type plain Metric
	if m.Value != nil && (math.IsNaN(*m.Value) || math.IsInf(*m.Value, 0)) {
		m.Value = nil
		if m.Exactness != Unavailable {
			m.Note = strings.TrimSpace(m.Note + " (not a finite number)")
			m.Exactness = Unavailable
		}
	}
	return json.Marshal(plain(m))
}

// Clone is a deep copy of the run. A Run is exactly what its JSON holds
// (fields are only ever added to both), so the round trip is the copy; an
// error means a value JSON cannot hold (a NaN), which the caller reports.
func (r *Run) Clone() (*Run, error) {
	data, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("copy run %s: %w", r.Label, err)
	}
	var out Run
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("copy run %s: %w", r.Label, err)
	}
	return &out, nil
}
