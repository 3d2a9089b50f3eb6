package result

import "strings"

// Finding is one conclusion a report leads with, computed by a stated rule
// from the numbers of a result (never written by hand): a change between the
// first and the last run beyond what the run's own noise allows, or, for a
// single run, one of its largest costs. Added to schema_version 1; readers
// that do not know it ignore it.
type Finding struct {
	Rank int    `json:"rank"` // 1 = largest effect
	Text string `json:"text"` // the sentence the reports print
	// Kind: "change" (a metric moved), "added"/"removed" (an object exists in
	// one run only), "cost" (a single run's cost), "none" (nothing beyond noise).
	Kind    string   `json:"kind"`
	Metric  string   `json:"metric,omitempty"`
	Level   string   `json:"level,omitempty"`   // database, table, index, run
	Object  string   `json:"object,omitempty"`  // as the sentence names it
	Objects []string `json:"objects,omitempty"` // every object a grouped finding covers
	Unit    string   `json:"unit,omitempty"`    // what before/after count: "per refresh", "total", "ratio", "ms"
	From    string   `json:"from,omitempty"`    // the first run's label
	To      string   `json:"to,omitempty"`      // the last run's label
	Value   *float64 `json:"value,omitempty"`   // a single run's cost
	Before  *float64 `json:"before,omitempty"`
	After   *float64 `json:"after,omitempty"`
	// Change is (after - before) / before in percent, or after - before in
	// percentage points for ratios (ChangeUnit says which); absent from zero.
	Change     *float64 `json:"change,omitempty"`
	ChangeUnit string   `json:"change_unit,omitempty"`
	// Effect is what the ranking sorts by, 0..1 (see Rule and the README).
	Effect    float64   `json:"effect"`
	Exactness Exactness `json:"exactness"`
	Rule      string    `json:"rule"` // why this counts as beyond noise
}

// Change is one cell of the reports' change column: a metric's last run
// against its first, as the table shows it. Added to schema_version 1.
type Change struct {
	Level  string   `json:"level"` // database, table, index
	Object string   `json:"object,omitempty"`
	Table  string   `json:"table,omitempty"` // for indexes
	Metric string   `json:"metric"`
	From   string   `json:"from"`
	To     string   `json:"to"`
	Unit   string   `json:"unit"` // "per refresh" (per-operation values), "total" or "ratio"
	Before *float64 `json:"before,omitempty"`
	After  *float64 `json:"after,omitempty"`
	// Value is the change as a number (percent, or points for ratios); absent
	// for "new" (from zero).
	Value     *float64  `json:"value,omitempty"`
	Text      string    `json:"text"` // as the table prints it: -90.9%, +100.0 pt, new, =
	Rule      string    `json:"rule"`
	Exactness Exactness `json:"exactness"`
}

// TableRowsChanged sums the rows inserted, updated and deleted in the run's
// tables (rows_written where a server counts only their sum); false when no
// table has those counters.
func (r *Run) TableRowsChanged() (float64, bool) {
	s := r.TableRows()
	return s.N, s.Counted > 0
}

// RowsSum is TableRows' sum: N over the Counted tables that had row
// counters, the weakest Exactness of its parts and the first part's Source;
// Uncounted tables had none (a caller that needs every table's rows, to take
// a remainder, refuses then rather than give a partial total).
type RowsSum struct {
	N                  float64
	Exactness          Exactness
	Source             string
	Counted, Uncounted int
}

// TableRows sums the rows inserted, updated and deleted in the run's tables
// (rows_written where a server counts only their sum), each partition once,
// through its partitioned table where that is listed.
func (r *Run) TableRows() RowsSum {
	s := RowsSum{Exactness: Exact}
	counted := Counted(r.Tables)
	for _, t := range r.Tables {
		if !counted(t) {
			continue // in its partitioned table's rows
		}
		var got []Metric
		for _, m := range RowMetrics {
			if v, has := t.Metrics[m]; has && v.OK() {
				got = append(got, v)
			}
		}
		if v, has := t.Metrics[RowsWritten.Name]; has && v.OK() && len(got) == 0 {
			got = append(got, v)
		}
		if len(got) == 0 {
			s.Uncounted++
			continue
		}
		s.Counted++
		for _, v := range got {
			s.N += v.V()
			s.Exactness = Weaker(s.Exactness, v.Exactness)
			if s.Source == "" {
				s.Source = v.Source
			}
		}
	}
	return s
}

// ServerRowsChanged is the same sum over the database-wide row counters,
// for servers that count rows only server-wide (InnoDB on MariaDB).
func (r *Run) ServerRowsChanged() (float64, bool) {
	var n float64
	ok := false
	for _, m := range RowMetrics {
		if v, has := r.Database[m]; has && v.OK() {
			n += v.V()
			ok = true
		}
	}
	return n, ok
}

// RowMetrics are the row counters whose sum is "rows changed".
var RowMetrics = []string{"rows_inserted", "rows_updated", "rows_deleted"}

// Singular names one operation of a kind ("refreshes" -> "refresh"): the
// JSON's per_operation keys and the reports' "per refresh" say it so.
func Singular(op string) string {
	for _, suf := range []string{"shes", "ches", "sses", "xes"} {
		if strings.HasSuffix(op, suf) {
			return strings.TrimSuffix(op, "es")
		}
	}
	return strings.TrimSuffix(op, "s")
}
