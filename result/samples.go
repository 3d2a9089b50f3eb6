package result

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/dustin/go-humanize"
)

// Samples are the cheap whole-server counters read again and again while a
// window was open (measure/run --interval): when the writes happened, where
// the rest of a run says only how many. Added to schema_version 1 as a
// run's "samples" (the readings) and "timeline" (samplesjson.go); readers
// that do not know them ignore them.
type Samples struct {
	// IntervalSeconds is the sampling period asked for (--interval); the
	// last interval ends when the workload did, so it is usually shorter.
	IntervalSeconds float64        `json:"interval_seconds"`
	Series          []SampleSeries `json:"series"`
	Points          []SamplePoint  `json:"points"`
	// Notes say what could not be sampled and why, and what happened to a
	// series during the window (a counter reset, sampling that stopped).
	Notes []string `json:"notes,omitempty"`
}

// SampleSeries is one counter of a timeline: a catalogue metric name
// (log_bytes, rows_inserted, ...) with its unit, how far its values over
// time can be trusted, and where they come from.
type SampleSeries struct {
	Name string `json:"name"`
	Unit Unit   `json:"unit"`
	// Exactness is of the series over time: a log position is exact at the
	// instant it is read; a statistics counter that sessions publish late
	// puts work in a later interval than it happened (approx).
	Exactness Exactness `json:"exactness"`
	Source    string    `json:"source"`
	Note      string    `json:"note,omitempty"`
}

// SamplePoint is one reading: its time, each series' value counted from
// the first reading, and each series' rate per second over the interval
// that ended with it (none on the first reading).
type SamplePoint struct {
	T      float64            `json:"t"`
	Values map[string]float64 `json:"values"`
	Rates  map[string]float64 `json:"rates,omitempty"`
}

// RowsChanged is the name of the derived rate the reports draw next to the
// log: rows inserted + updated + deleted per second.
const RowsChanged = "rows_changed"

// rowSeries are the series RowsChanged adds up.
var rowSeries = []string{"rows_inserted", "rows_updated", "rows_deleted"}

// Lookup returns the named series, false when it was not sampled.
func (s *Samples) Lookup(name string) (SampleSeries, bool) {
	if s == nil {
		return SampleSeries{}, false
	}
	for _, x := range s.Series {
		if x.Name == name {
			return x, true
		}
	}
	return SampleSeries{}, false
}

// HasRows reports whether every row series was sampled (so RowsChanged is
// their sum and not a part of it).
func (s *Samples) HasRows() bool {
	for _, n := range rowSeries {
		if _, ok := s.Lookup(n); !ok {
			return false
		}
	}
	return true
}

// Rate is a series' rate at a point; for RowsChanged the sum of the row
// series. ok is false where the point has none (the first reading, an
// interval a reset left out).
func (p SamplePoint) Rate(name string) (float64, bool) {
	if name != RowsChanged {
		v, ok := p.Rates[name]
		return v, ok
	}
	sum := 0.0
	for _, n := range rowSeries {
		v, ok := p.Rates[n]
		if !ok {
			return 0, false
		}
		sum += v
	}
	return sum, true
}

// RateStats are the minimum, median and maximum of a series' rates over
// the intervals, and how many intervals they rest on.
type RateStats struct {
	Min, Median, Max float64
	N                int
}

// Stats summarises a series' rates (RowsChanged included); N is 0 when the
// series has no rate.
func (s *Samples) Stats(name string) RateStats {
	var rs []float64
	for _, p := range s.Points {
		if v, ok := p.Rate(name); ok {
			rs = append(rs, v)
		}
	}
	if len(rs) == 0 {
		return RateStats{}
	}
	sort.Float64s(rs)
	med := rs[len(rs)/2]
	if len(rs)%2 == 0 {
		med = (rs[len(rs)/2-1] + rs[len(rs)/2]) / 2
	}
	return RateStats{Min: rs[0], Median: med, Max: rs[len(rs)-1], N: len(rs)}
}

// FormatRate writes a rate per second in the series' unit: bytes in binary
// units (1.53 MiB/s), counts with separators and no decimals from 100 up
// (1,234/s), else with one (12.5/s) or two (0.25/s).
func FormatRate(u Unit, v float64) string {
	if u == Bytes {
		return FormatBytes(v) + "/s"
	}
	switch a := math.Abs(v); {
	case a >= 100:
		return humanize.CommafWithDigits(math.Round(v), 0) + "/s"
	case a >= 10:
		return humanize.FtoaWithDigits(v, 1) + "/s"
	}
	return humanize.FtoaWithDigits(v, 2) + "/s"
}

// validate refuses what no sampler writes: times that go back or are not
// finite, negative values or rates, points naming a series not listed.
func (s *Samples) validate(where string) error {
	if s == nil {
		return nil
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s: samples: %s (was the file edited?)", where, fmt.Sprintf(format, a...))
	}
	if !(s.IntervalSeconds > 0) || math.IsInf(s.IntervalSeconds, 0) {
		return bad("interval_seconds is %v: it must be a positive number of seconds", s.IntervalSeconds)
	}
	var names []string
	for _, x := range s.Series {
		if x.Name == "" || slices.Contains(names, x.Name) {
			return bad("series %q is empty or listed twice", x.Name)
		}
		names = append(names, x.Name)
	}
	last := math.Inf(-1)
	for i, p := range s.Points {
		if math.IsNaN(p.T) || math.IsInf(p.T, 0) || p.T < 0 || p.T < last {
			return bad("points[%d].t is %v: times start at 0 and only grow", i, p.T)
		}
		last = p.T
		for kind, m := range map[string]map[string]float64{"values": p.Values, "rates": p.Rates} {
			for _, k := range sortedKeys(m) {
				if !slices.Contains(names, k) {
					return bad("points[%d].%s names %q, which is not among the series", i, kind, k)
				}
				if v := m[k]; math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
					return bad("points[%d].%s.%s is %v: a count or its rate cannot be negative", i, kind, k, v)
				}
			}
		}
	}
	return nil
}
