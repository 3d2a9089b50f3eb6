package reports

import (
	"fmt"
	"maps"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/writeamp/writeamp/result"
)

// Findings are computed by rules from the comparison, never written by hand.
// Between runs: the last column against the first (as the change column),
// one finding per metric and object whose change is beyond the run's own
// noise (see noiseRule), objects with the same change grouped, ranked by
// effect. A single run: its largest costs per operation and where they go.

// Noise thresholds. Exact counts of the same work (the built-in workload,
// same operations, same seed, one worker) repeat exactly, so any change is
// real; bytes include page headers, full-page images and other sessions,
// and latency is the machine's, so they need a margin.
const (
	relNoise       = 0.05   // bytes; counts of work that is not provably the same; approx numbers
	timingNoise    = 0.25   // latency percentiles
	ratioNoiseSame = 0.0005 // 0.05 pt (the precision shown) for the same work
	ratioNoise     = 0.05   // 5 pt otherwise
	shownFindings  = 6      // the text formats print this many; the JSON has all
)

// Which metrics findings judge, how they word them and in which order they
// rank is the catalogue's (result.Info.Finding): index entries, HOT, log,
// rows at the table and index levels, and every database-level metric the
// tables show. Latency is the driver's, not the catalogue's: it ranks with
// the secondary metrics, after block changes.
const latencyRank = 11

func spec(metric string) *result.FindingSpec {
	i, ok := result.Lookup(metric)
	if !ok {
		return nil
	}
	return i.Finding
}

// judged says whether findings look at a metric's row in a section of kind:
// where its finding spec says, and at the database level every metric the
// human tables show (not bookkeeping, totals or sampled shares).
func judged(metric, kind string) bool {
	if sp := spec(metric); sp != nil {
		return string(sp.Level) == kind
	}
	i, ok := result.Lookup(metric)
	return ok && kind == string(result.LevelDatabase) && i.At(result.LevelDatabase) &&
		!i.Total && i.Show != result.JSONOnly && i.Show != result.WhenShare
}

// tier: 0 the headline metrics (index entries, HOT, log, rows, objects
// added or removed), 1 the secondary ones with a spec and latency, 2 the
// database-level metrics judged without one. A lower tier ranks first
// whatever the effects: a 94% drop of 0.02 page splits per operation
// matters less than 1 index entry per operation, and a 100% drop of 0.3
// full-page-image bytes per operation follows the page splits.
func tier(metric string) int {
	switch sp := spec(metric); {
	case sp != nil && !sp.Secondary:
		return 0
	case sp != nil || metric == result.DriverLatency.Name:
		return 1
	}
	return 2
}

func priority(metric string) int {
	if sp := spec(metric); sp != nil {
		return sp.Rank
	}
	if metric == result.DriverLatency.Name {
		return latencyRank
	}
	return latencyRank + 1
}

// FindingsOf returns the result with its findings and change column filled
// in (a copy: the input is not changed), as every result file is written.
func FindingsOf(res *result.Result) *result.Result {
	out := *res
	c := FromResult(res)
	out.Findings = c.Findings
	out.Changes = Changes(c)
	out.Claims = c.Claims
	return &out
}

// sameWork says whether two runs did provably the same work, so that exact
// counts repeat exactly: statements writeamp issued itself (not a wrapped
// command), the same operation counts, one worker, and the same rows as the
// driver counted them.
func sameWork(res *result.Result, a, b *result.Run) (bool, string) {
	switch {
	case len(a.Command) > 0 || len(b.Command) > 0 || len(a.Operations) == 0:
		return false, "not the built-in workload: writeamp cannot tell that both runs did the same work"
	case !maps.Equal(a.Operations, b.Operations):
		return false, "the runs did different operation counts"
	case res.Workload.Mixed:
		return false, "the runs ran different workloads or parameters"
	case workers(res, a) > 1 || workers(res, b) > 1:
		return false, "several workers interleave differently in every run"
	case len(a.Writes) > 0 && len(b.Writes) > 0 && !sameWrites(a.Writes, b.Writes):
		return false, "the driver counted different rows in the two runs"
	}
	return true, "the same work (built-in workload, same operations and seed, one worker)"
}

func workers(res *result.Result, r *result.Run) int {
	if r.Concurrency > 0 {
		return r.Concurrency
	}
	n, _ := strconv.Atoi(fmt.Sprint(res.Workload.Params["concurrency"]))
	return n
}

func sameWrites(a, b []result.Write) bool {
	sum := func(ws []result.Write) map[string]int64 {
		m := map[string]int64{}
		for _, w := range ws {
			m[strings.ToLower(w.Table)+"/"+w.Kind] += w.Rows
		}
		return m
	}
	return maps.Equal(sum(a), sum(b))
}

// kindOf sorts a metric into the noise classes.
func kindOf(metric string) string {
	switch {
	case metric == result.DriverLatency.Name:
		return "timing"
	case isRatio(metric):
		return "ratio"
	case isBytes(metric):
		return "bytes"
	}
	return "count"
}

// beyondNoise applies the rule to one object's change and says which rule
// decided. spread is the largest relative difference between repetitions of
// one run in the comparison (0 when there are none).
func beyondNoise(metric string, a, b float64, e result.Exactness, same bool, spread float64) (bool, string) {
	return beyondNoiseAs(kindOf(metric), a, b, e, same, spread)
}

// beyondNoiseAs is beyondNoise for a number the catalogue does not class
// (a wait's share of sampled time is a ratio whatever its name).
func beyondNoiseAs(kind string, a, b float64, e result.Exactness, same bool, spread float64) (bool, string) {
	widen := func(thr float64, rule string) (float64, string) {
		if spread > thr {
			return spread, fmt.Sprintf("beyond %.1f%%, the spread of repetitions of one run in this comparison", 100*spread)
		}
		return thr, rule
	}
	rel := func(thr float64, rule string) (bool, string) {
		thr, rule = widen(thr, rule)
		if a == 0 {
			return b != 0, rule
		}
		return math.Abs(b-a)/math.Abs(a) > thr, rule
	}
	switch kind {
	case "timing":
		return rel(timingNoise, "latency: beyond ±25% (timings of a shared machine)")
	case "ratio":
		thr, rule := ratioNoise, "a ratio of counts of work that is not provably the same: beyond 5 pt"
		if same && e != result.Approx {
			thr, rule = ratioNoiseSame, "a ratio of exact counts of the same work: any change beyond the 0.05 pt shown"
		}
		if spread > thr {
			thr, rule = spread, fmt.Sprintf("beyond %.1f pt, the spread of repetitions of one run in this comparison", 100*spread)
		}
		if thr == ratioNoiseSame {
			return math.Abs(b-a) >= thr, rule
		}
		return math.Abs(b-a) > thr, rule
	case "count":
		if same && e != result.Approx && spread == 0 {
			return a != b, map[bool]string{true: "an ", false: "a "}[e == result.Exact || e == result.Approx] + string(e) + " count of the same work: any change counts"
		}
		if e == result.Approx {
			return rel(relNoise, "an approx count: beyond ±5%")
		}
		return rel(relNoise, "a count of work that is not provably the same: beyond ±5%")
	}
	return rel(relNoise, "bytes (page headers, full-page images, other sessions vary): beyond ±5%")
}

// noiseRule is the rule the text formats state once under the findings.
func noiseRule(same bool, why string) string {
	s := "rule: last column vs first; "
	if same {
		s += "exact and derived counts of " + why + " count at any change, ratios of them beyond 0.05 pt; "
	} else {
		s += "counts beyond ±5% (" + why + "), ratios beyond 5 pt; "
	}
	return s + "bytes beyond ±5%, latency beyond ±25%; repetitions of a run widen these to their own spread. " +
		"Ranked headline metrics first (index entries, HOT, log, rows, objects added or removed), then page splits, waits and latency, each by effect: the change as a share of the larger value (per-object metrics: of the metric's total over all objects; ratios: in points)."
}

// value is what a finding compares: per operation when the comparison
// normalizes (ratios as they are), else the total.
func value(c *Comparison, metric string, cell Cell) (float64, bool) {
	if !cell.Present || !cell.Metric.OK() {
		return 0, false
	}
	if cell.PerOp != nil && !isRatio(metric) {
		return *cell.PerOp, true
	}
	return cell.Metric.V(), true
}

func unitOf(c *Comparison, metric string) string {
	switch {
	case isRatio(metric):
		return "ratio"
	case metric == result.DriverLatency.Name:
		return "ms"
	case c.PerOp != "":
		return "per " + c.PerOp
	}
	return "total"
}

func perUnit(c *Comparison) string {
	if c.PerOp == "" {
		return ""
	}
	return " per " + c.PerOp
}

func fmtVal(c *Comparison, metric string, v float64) string {
	switch {
	case isRatio(metric):
		return fmt.Sprintf("%.1f%%", 100*v)
	case metric == result.DriverLatency.Name:
		return fmt.Sprintf("%.3f ms", v)
	case isBytes(metric):
		return result.FormatBytes(v)
	case v == 0:
		return "0"
	case c.PerOp != "" && math.Abs(v) < 0.1:
		// three significant digits: 0.020 → 0.001 would hide a 94% drop
		return strconv.FormatFloat(v, 'g', 3, 64)
	case c.PerOp != "":
		return result.FormatPerUnit(metric, v)
	}
	return result.FormatTotal(metric, v)
}

// fmtPair formats a before/after pair so that two different values never
// print alike: 1500 -> 1504 index entries per 15,000 refreshes is 0.100 ->
// 0.1003, not 0.100 -> 0.100. Bytes are both in the larger one's unit.
func fmtPair(c *Comparison, metric string, a, b float64) (string, string) {
	if isBytes(metric) {
		scale := result.ByteScale(math.Max(math.Abs(a), math.Abs(b)))
		at := func(v float64, extra int) string {
			if v == 0 {
				return result.FormatBytes(0)
			}
			return result.FormatBytesAt(v, scale, extra)
		}
		sa, sb := at(a, 0), at(b, 0)
		for extra := 1; sa == sb && a != b && extra <= 9; extra++ {
			sa, sb = at(a, extra), at(b, extra)
		}
		return sa, sb
	}
	sa, sb := fmtVal(c, metric, a), fmtVal(c, metric, b)
	if a == b || sa != sb || math.IsNaN(a) || math.IsNaN(b) {
		return sa, sb
	}
	unit, scale := "", 1.0
	switch {
	case isRatio(metric):
		unit, scale = "%", 100
	case metric == result.DriverLatency.Name:
		unit = " ms"
	}
	for digits := 4; digits <= 12; digits++ {
		sa = strconv.FormatFloat(scale*a, 'g', digits, 64)
		sb = strconv.FormatFloat(scale*b, 'g', digits, 64)
		if sa != sb {
			break
		}
	}
	return sa + unit, sb + unit
}

// exactnessWords is what a sentence says about a number that is not exact.
func exactnessWords(e result.Exactness) string {
	switch e {
	case result.Derived:
		return "; derived"
	case result.Approx:
		return "; approx"
	}
	return ""
}

func ptr(v float64) *float64 { return &v }

// rankFindings orders headline metrics before secondary ones, each by
// effect (largest first), then by how many objects a finding covers, then by the metric's finding rank, then by text.
func rankFindings(fs []result.Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if ta, tb := tier(a.Metric), tier(b.Metric); ta != tb {
			return ta < tb
		}
		if a.Effect != b.Effect {
			return a.Effect > b.Effect
		}
		if len(a.Objects) != len(b.Objects) {
			return len(a.Objects) > len(b.Objects)
		}
		if pa, pb := priority(a.Metric), priority(b.Metric); pa != pb {
			return pa < pb
		}
		return a.Text < b.Text
	})
	for i := range fs {
		fs[i].Rank = i + 1
	}
}
