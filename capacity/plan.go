package capacity

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/writeamp/writeamp/result"
)

// Figure is one projected number with where it came from.
type Figure struct {
	PerOp     float64          `json:"per_operation"` // per operation of the rate
	PerSecond float64          `json:"per_second"`
	Exactness result.Exactness `json:"exactness"`
	Source    string           `json:"source"`
	Note      string           `json:"note,omitempty"`
	OK        bool             `json:"available"`
}

// Headroom is a variant against a ceiling.
type Headroom struct {
	Ceiling      Ceiling `json:"ceiling"`
	UsedPercent  float64 `json:"used_percent"` // log bytes/s as a share of the ceiling
	HeadroomBps  float64 `json:"headroom_bytes_per_second"`
	MaxRate      float64 `json:"max_rate_per_second"` // the rate at which the ceiling is reached
	WithinBudget bool    `json:"within"`
}

// VariantPlan is one variant at the rate.
type VariantPlan struct {
	Variant  string             `json:"variant"`
	Op       string             `json:"operation"` // the operation the rate counts
	Measured int64              `json:"measured_operations"`
	Scale    float64            `json:"runs_per_second"` // measured runs per second at this rate
	Mix      map[string]float64 `json:"mix_per_second"`  // every operation's rate at this rate
	LogBytes Figure             `json:"log_bytes"`
	// ClusterLog is the whole server's log in the window when LogBytes is the
	// workload's own share (other sessions, page headers included).
	ClusterLog  *Figure    `json:"cluster_log_bytes,omitempty"`
	LeafInserts Figure     `json:"-"` // keyed by the catalogue's name (planjson.go)
	RowsChanged Figure     `json:"rows_changed"`
	Headroom    []Headroom `json:"headroom,omitempty"`
}

// LogMBps is the log rate in MB/s (10^6 bytes).
func (v VariantPlan) LogMBps() float64 { return v.LogBytes.PerSecond / MB }

// LogMiBps is the log rate in MiB/s (2^20 bytes).
func (v VariantPlan) LogMiBps() float64 { return v.LogBytes.PerSecond / MiB }

// LogGBPerDay is the log volume in GB (10^9 bytes) per day.
func (v VariantPlan) LogGBPerDay() float64 { return v.LogBytes.PerSecond * Day / GB }

// Saving is one variant against the first.
type Saving struct {
	From, To   string
	GBPerDay   float64 `json:"gb_per_day"` // positive = To writes less
	Percent    float64 `json:"percent"`
	LeafPerSec float64 `json:"leaf_inserts_per_second"`
}

// Plan is the projection of a result at a rate (the first, with several).
type Plan struct {
	Rate     Rate          `json:"-"`
	RateText string        `json:"rate"`
	Server   string        `json:"server"`
	Workload string        `json:"workload"`
	Variants []VariantPlan `json:"variants"`
	Savings  []Saving      `json:"savings,omitempty"`
	// PerRow is set when the rate counts rows changed rather than an
	// operation (--rate rows=N/s, or a result without operation counts).
	PerRow bool `json:"per_row_changed,omitempty"`
	// AtRates holds every rate given (the first is the one above), when
	// several were: --rate 100/s,500/s,2000/s.
	AtRates     []AtRate  `json:"rates,omitempty"`
	Ceilings    []Ceiling `json:"ceilings"`
	Assumptions []string  `json:"assumptions"`
	// Replication is the log shipped to replicas (AddReplicas), when asked.
	Replication *ReplicaPlan `json:"replication,omitempty"`
}

// AtRate is the projection at one of several rates.
type AtRate struct {
	Rate     Rate          `json:"-"`
	RateText string        `json:"rate"`
	Variants []VariantPlan `json:"variants"`
	Savings  []Saving      `json:"savings,omitempty"`
}

// Project scales each run of the result to the rate. The ceilings are held
// against every variant (published ones when none is given).
func Project(res *result.Result, rate Rate, ceilings []Ceiling) (*Plan, error) {
	if len(res.Runs) == 0 {
		return nil, fmt.Errorf("the result has no runs")
	}
	if err := Validate(res); err != nil {
		return nil, err
	}
	p := &Plan{Rate: rate, RateText: rate.Text, Server: res.Server.Name, Workload: res.Workload.Name, Ceilings: ceilings,
		PerRow: perRow(res, rate)}
	var logSources, fpiNotes, rowScopes []string
	for i := range res.Runs {
		r := &res.Runs[i]
		label := r.Variant
		if r.Label != "" {
			label = r.Label
		}
		op, n, scope, err := denominator(r, label, rate, p.PerRow)
		if err != nil {
			return nil, err
		}
		if scope != "" && !slices.Contains(rowScopes, scope) {
			rowScopes = append(rowScopes, scope)
		}
		vp := VariantPlan{Variant: label, Op: op, Measured: int64(n), Scale: rate.PerSecond / n, Mix: map[string]float64{}}
		for k, c := range r.Operations {
			vp.Mix[k] = float64(c) * vp.Scale
		}
		// The workload's own log when the server can tell it apart (pg_walinspect:
		// records on the measured objects and their transactions' commits): the
		// whole-cluster figure also holds other sessions' writes of the window.
		if own := r.Database["log_bytes_in_scope"]; own.OK() {
			vp.LogBytes = figure(own, n, vp.Scale)
			vp.LogBytes.Source = "log_bytes_in_scope: " + own.Source
			if all := r.Database["log_bytes"]; all.OK() {
				f := figure(all, n, vp.Scale)
				f.Source = "log_bytes: " + all.Source
				vp.ClusterLog = &f
			}
		} else {
			vp.LogBytes = figure(r.Database["log_bytes"], n, vp.Scale)
			if vp.LogBytes.OK {
				vp.LogBytes.Source = "log_bytes: " + vp.LogBytes.Source
			}
		}
		if vp.LogBytes.OK && !slices.Contains(logSources, vp.LogBytes.Source) {
			logSources = append(logSources, vp.LogBytes.Source)
		}
		if f := r.Database["fpi_bytes"]; f.OK() && r.Database["log_bytes"].OK() && r.Database["log_bytes"].V() > 0 {
			fpiNotes = append(fpiNotes, fmt.Sprintf("%s %.1f%%", label, 100*f.V()/r.Database["log_bytes"].V()))
		}
		vp.LeafInserts = sum(r.Indexes, []string{result.LeafInserts.Name}, n, vp.Scale, "sum of "+result.LeafInserts.Name+" over the measured indexes")
		vp.RowsChanged = sum(r.Tables, result.RowMetrics, n, vp.Scale, "sum of rows_inserted + rows_updated + rows_deleted over the measured tables")
		if !vp.RowsChanged.OK && scope == "by the whole server" {
			vp.RowsChanged = sum([]result.Object{{Name: "database", Metrics: r.Database}}, result.RowMetrics, n, vp.Scale,
				"sum of rows_inserted + rows_updated + rows_deleted of the whole server")
		}
		if err := overflow(vp, rate); err != nil {
			return nil, err
		}
		for _, c := range ceilings {
			if !vp.LogBytes.OK || vp.LogBytes.PerOp <= 0 {
				continue
			}
			h := Headroom{Ceiling: c, UsedPercent: 100 * vp.LogBytes.PerSecond / c.BytesPerSec,
				HeadroomBps: c.BytesPerSec - vp.LogBytes.PerSecond, MaxRate: c.BytesPerSec / vp.LogBytes.PerOp}
			h.WithinBudget = h.HeadroomBps >= 0
			vp.Headroom = append(vp.Headroom, h)
		}
		p.Variants = append(p.Variants, vp)
	}
	first := p.Variants[0]
	if p.Rate.Op == "" || p.PerRow {
		p.Rate.Op = first.Op
	}
	rate = p.Rate
	for _, v := range p.Variants[1:] {
		if !first.LogBytes.OK || !v.LogBytes.OK {
			continue
		}
		s := Saving{From: first.Variant, To: v.Variant, GBPerDay: first.LogGBPerDay() - v.LogGBPerDay(),
			LeafPerSec: first.LeafInserts.PerSecond - v.LeafInserts.PerSecond}
		if first.LogBytes.PerSecond > 0 {
			s.Percent = 100 * (first.LogBytes.PerSecond - v.LogBytes.PerSecond) / first.LogBytes.PerSecond
		}
		p.Savings = append(p.Savings, s)
	}
	op := first.Op
	var mix []string
	for _, k := range slices.Sorted(maps.Keys(first.Mix)) {
		if k != op {
			mix = append(mix, fmt.Sprintf("%s %s/s", trimFloat(first.Mix[k]), k))
		}
	}
	p.Assumptions = append(p.Assumptions, rateAssumptions(res, p, rowScopes, mix)...)
	p.Assumptions = append(p.Assumptions,
		"costs scale linearly with the rate: the measured window's bytes and writes per operation, no batching or group-commit effects, the same data size and cache state as measured",
		"units: MB = 10^6 bytes, GB = 10^9 bytes, MiB = 2^20 bytes, GiB = 2^30 bytes; a day is 86,400 s at a constant rate",
	)
	for _, s := range logSources {
		p.Assumptions = append(p.Assumptions, "log bytes: "+s)
	}
	if first.ClusterLog != nil {
		p.Assumptions = append(p.Assumptions, "the log rate is the workload's own records; the whole-cluster LSN difference (a row of its own) adds WAL page headers (about 0.5%) and whatever other sessions wrote during the measurement")
	}
	if len(fpiNotes) > 0 {
		p.Assumptions = append(p.Assumptions, fpiAssumption(res, strings.Join(fpiNotes, ", ")))
	}
	if len(ceilings) > 0 {
		p.Assumptions = append(p.Assumptions, "ceilings: "+CeilingsAbout())
		if res.Server.Dialect != "" && res.Server.Dialect != loadCeilings().LogOf {
			p.Assumptions = append(p.Assumptions, fmt.Sprintf("the published ceilings limit SQL Server's transaction log on Azure; this result measured %s's log, so they show what the same volume would meet there, not a limit of %s", res.Server.Name, res.Server.Name))
		}
	}
	return p, nil
}

func figure(m result.Metric, n, scale float64) Figure {
	if !m.OK() {
		return Figure{Exactness: result.Unavailable, Source: m.Source, Note: m.Note}
	}
	return Figure{PerOp: m.V() / n, PerSecond: m.V() * scale, Exactness: m.Exactness, Source: m.Source, Note: m.Note, OK: true}
}

func sum(objs []result.Object, metrics []string, n, scale float64, source string) Figure {
	f := Figure{Exactness: result.Exact, Source: source}
	var total float64
	var missing []string
	got := 0
	counted := result.Counted(objs) // a partition once, through its partitioned table
	for _, o := range objs {
		if !counted(o) {
			continue
		}
		for _, name := range metrics {
			m, ok := o.Metrics[name]
			if !ok {
				continue
			}
			if !m.OK() {
				missing = append(missing, o.Name)
				continue
			}
			got++
			total += m.V()
			f.Exactness = result.Weaker(f.Exactness, m.Exactness)
		}
	}
	if got == 0 {
		return Figure{Exactness: result.Unavailable, Source: source, Note: "not measured in this run"}
	}
	f.OK, f.PerOp, f.PerSecond = true, total/n, total*scale
	if len(missing) > 0 {
		sort.Strings(missing)
		f.Note = "unavailable for " + strings.Join(dedupe(missing), ", ") + " (not included)"
	}
	return f
}

func dedupe(in []string) []string {
	var out []string
	for i, s := range in {
		if i == 0 || in[i-1] != s {
			out = append(out, s)
		}
	}
	return out
}

func opNames(r *result.Run) []string { return slices.Sorted(maps.Keys(r.Operations)) }

func firstOp(r *result.Run) string {
	if ks := opNames(r); len(ks) > 0 {
		return ks[0]
	}
	return "operations"
}

// HumanRate formats operations per second.
func HumanRate(v float64) string {
	switch {
	case math.IsInf(v, 0) || math.IsNaN(v):
		return "—"
	case v >= 100:
		return fmt.Sprintf("%s/s", commas(math.Round(v)))
	default:
		return fmt.Sprintf("%s/s", trimFloat(v))
	}
}

func commas(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
