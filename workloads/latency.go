package workloads

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/writeamp/writeamp/result"
)

// Histogram records latencies in microseconds, 1 µs to 10 min at 3
// significant digits: fixed memory however many operations run.
type Histogram struct{ h *hdrhistogram.Histogram }

// NewHistogram returns an empty histogram.
func NewHistogram() *Histogram {
	return &Histogram{h: hdrhistogram.New(1, int64(10*time.Minute/time.Microsecond), 3)}
}

// Record adds one latency.
func (h *Histogram) Record(d time.Duration) {
	us := d.Microseconds()
	if us < 1 {
		us = 1
	}
	_ = h.h.RecordValue(us) // values above the range are clamped by the caller's timeout
}

// Merge adds another worker's histogram.
func (h *Histogram) Merge(o *Histogram) { h.h.Merge(o.h) }

// Count is the number of recorded values.
func (h *Histogram) Count() int64 { return h.h.TotalCount() }

// Summary returns the percentiles in milliseconds.
func (h *Histogram) Summary() result.Latency {
	ms := func(us int64) float64 { return float64(us) / 1000 }
	return result.Latency{
		Count: h.h.TotalCount(),
		P50:   ms(h.h.ValueAtQuantile(50)),
		P95:   ms(h.h.ValueAtQuantile(95)),
		P99:   ms(h.h.ValueAtQuantile(99)),
		Max:   ms(h.h.Max()),
		Mean:  h.h.Mean() / 1000,
	}
}
