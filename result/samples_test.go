package result

import (
	"strings"
	"testing"
)

func samplePoints() *Samples {
	return &Samples{IntervalSeconds: 5,
		Series: []SampleSeries{{Name: "log_bytes", Unit: Bytes, Exactness: Exact}, {Name: "rows_inserted", Unit: Count, Exactness: Approx},
			{Name: "rows_updated", Unit: Count, Exactness: Approx}, {Name: "rows_deleted", Unit: Count, Exactness: Approx}},
		Points: []SamplePoint{
			{T: 0, Values: map[string]float64{"log_bytes": 0, "rows_inserted": 0, "rows_updated": 0, "rows_deleted": 0}},
			{T: 5, Values: map[string]float64{"log_bytes": 500, "rows_inserted": 50, "rows_updated": 0, "rows_deleted": 0},
				Rates: map[string]float64{"log_bytes": 100, "rows_inserted": 10, "rows_updated": 0, "rows_deleted": 0}},
			{T: 10, Values: map[string]float64{"log_bytes": 2500, "rows_inserted": 50, "rows_updated": 100, "rows_deleted": 5},
				Rates: map[string]float64{"log_bytes": 400, "rows_inserted": 0, "rows_updated": 20, "rows_deleted": 1}},
			{T: 15, Values: map[string]float64{"log_bytes": 3500, "rows_inserted": 60}, // a reset left the row rates out
				Rates: map[string]float64{"log_bytes": 200}},
		}}
}

func TestSampleStats(t *testing.T) {
	s := samplePoints()
	if got := s.Stats("log_bytes"); got != (RateStats{Min: 100, Median: 200, Max: 400, N: 3}) {
		t.Errorf("log_bytes stats %+v", got)
	}
	// rows changed is the sum of the three row rates, only where all three are known
	if got := s.Stats(RowsChanged); got != (RateStats{Min: 10, Median: 15.5, Max: 21, N: 2}) {
		t.Errorf("rows changed stats %+v", got)
	}
	if got := s.Stats("hot_updates"); got.N != 0 {
		t.Errorf("a series not sampled has no stats: %+v", got)
	}
	if !s.HasRows() {
		t.Error("every row series was sampled")
	}
}

func TestFormatRate(t *testing.T) {
	for _, c := range []struct {
		u    Unit
		v    float64
		want string
	}{
		{Bytes, 959.2, "959.2 B/s"}, {Bytes, 3.2 * 1024 * 1024, "3.20 MiB/s"}, {Count, 12345.6, "12,346/s"},
		{Count, 12.34, "12.3/s"}, {Count, 0.25, "0.25/s"}, {Count, 0, "0/s"},
	} {
		if got := FormatRate(c.u, c.v); got != c.want {
			t.Errorf("FormatRate(%s, %v) = %q, want %q", c.u, c.v, got, c.want)
		}
	}
}

func TestValidateRefusesSamplesNoSamplerWrites(t *testing.T) {
	for name, edit := range map[string]func(s *Samples){
		"negative rate":   func(s *Samples) { s.Points[1].Rates["log_bytes"] = -1 },
		"time going back": func(s *Samples) { s.Points[2].T = 1 },
		"unknown series":  func(s *Samples) { s.Points[1].Values["waits"] = 1 },
		"no interval":     func(s *Samples) { s.IntervalSeconds = 0 },
		"series twice":    func(s *Samples) { s.Series = append(s.Series, s.Series[0]) },
		"negative time":   func(s *Samples) { s.Points[0].T = -1 },
		"negative value":  func(s *Samples) { s.Points[2].Values["rows_deleted"] = -5 },
	} {
		r := &Result{SchemaVersion: 1, Runs: []Run{{Variant: "v", Samples: samplePoints()}}}
		if err := r.Validate(); err != nil {
			t.Fatalf("the unedited samples are valid: %v", err)
		}
		edit(r.Runs[0].Samples)
		err := r.Validate()
		if err == nil || !strings.Contains(err.Error(), "samples") {
			t.Errorf("%s: got %v, want an error naming the samples", name, err)
		}
	}
}
