package measure

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/result"
)

// fakeSource returns the readings it is given, one per Read.
type fakeSource struct{ readings []map[string]float64 }

func (f *fakeSource) Series(dialects.Server, []collectors.Object) ([]result.SampleSeries, []string) {
	return []result.SampleSeries{{Name: "log_bytes", Unit: result.Bytes, Exactness: result.Exact}, {Name: "rows_inserted", Unit: result.Count, Exactness: result.Approx}}, nil
}

func (f *fakeSource) Read(context.Context, *sql.Conn, dialects.Server, []collectors.Object) (map[string]float64, error) {
	r := f.readings[0]
	f.readings = f.readings[1:]
	return r, nil
}

func fakeObs(every float64, readings ...map[string]float64) (*timelineObs, *time.Duration) {
	now := new(time.Duration)
	src := &fakeSource{readings: readings}
	series, _ := src.Series(dialects.Server{}, nil)
	return &timelineObs{t: &Timeline{Keep: true}, src: src, w: &Window{},
		samples: &result.Samples{IntervalSeconds: every, Series: series},
		clock:   func() time.Duration { return *now }}, now
}

func TestTimelineRatesAndValues(t *testing.T) {
	t.Parallel()
	o, now := fakeObs(1,
		map[string]float64{"log_bytes": 1000, "rows_inserted": 10},
		map[string]float64{"log_bytes": 3000, "rows_inserted": 10},
		map[string]float64{"log_bytes": 3000, "rows_inserted": 110},
		map[string]float64{"log_bytes": 3500, "rows_inserted": 130})
	ctx := context.Background()
	for i, at := range []time.Duration{0, time.Second, 2 * time.Second} {
		*now = at
		if err := o.read(ctx, false); err != nil {
			t.Fatal(i, err)
		}
	}
	// the workload ends 0.2 s into the third interval: too short a sliver
	// for a rate of its own, it is joined to the interval before
	*now = 2200 * time.Millisecond
	if err := o.read(ctx, true); err != nil {
		t.Fatal(err)
	}
	pts := o.samples.Points
	if len(pts) != 3 {
		t.Fatalf("want 3 points (the last interval joined to the one before), got %+v", pts)
	}
	if pts[0].T != 0 || pts[0].Values["log_bytes"] != 0 || pts[0].Rates != nil {
		t.Errorf("the first reading is the origin, with no rate: %+v", pts[0])
	}
	if pts[1].Rates["log_bytes"] != 2000 || pts[1].Rates["rows_inserted"] != 0 {
		t.Errorf("first interval: %+v", pts[1])
	}
	last := pts[2]
	if last.T != 2.2 || last.Values["log_bytes"] != 2500 || last.Values["rows_inserted"] != 120 {
		t.Errorf("last point %+v: values count from the first reading", last)
	}
	if r := last.Rates["rows_inserted"]; r < 99.99 || r > 100.01 { // 120 rows over 1.2 s
		t.Errorf("joined interval's row rate %v, want 100/s over 1.0–2.2 s", r)
	}
}

func TestTimelineResetHasNoRate(t *testing.T) {
	t.Parallel()
	o, now := fakeObs(1,
		map[string]float64{"log_bytes": 0, "rows_inserted": 500},
		map[string]float64{"log_bytes": 100, "rows_inserted": 600},
		map[string]float64{"log_bytes": 200, "rows_inserted": 30}, // pg_stat_reset() in between
		map[string]float64{"log_bytes": 300, "rows_inserted": 80})
	for i := 0; i < 4; i++ {
		*now = time.Duration(i) * time.Second
		if err := o.read(context.Background(), false); err != nil {
			t.Fatal(err)
		}
	}
	pts := o.samples.Points
	if _, ok := pts[2].Rates["rows_inserted"]; ok {
		t.Errorf("the interval with the reset has a row rate: %+v", pts[2])
	}
	if pts[2].Rates["log_bytes"] != 100 {
		t.Errorf("the other series keep their rate: %+v", pts[2])
	}
	if pts[3].Rates["rows_inserted"] != 50 || pts[3].Values["rows_inserted"] != 150 {
		t.Errorf("after the reset the series goes on from where it was: %+v", pts[3])
	}
	if len(o.samples.Notes) != 1 || !strings.Contains(o.samples.Notes[0], "rows_inserted fell") {
		t.Errorf("notes %q", o.samples.Notes)
	}
	if err := (&result.Result{SchemaVersion: 1, Runs: []result.Run{{Variant: "v", Samples: o.samples}}}).Validate(); err != nil {
		t.Errorf("the sampler wrote samples the reader refuses: %v", err)
	}
}

func TestCheckInterval(t *testing.T) {
	t.Parallel()
	if err := CheckInterval("--interval", 500*time.Millisecond); err == nil || !strings.Contains(err.Error(), "--interval") {
		t.Errorf("500ms: %v", err)
	}
	for _, d := range []time.Duration{0, time.Second, 5 * time.Second} {
		if err := CheckInterval("--interval", d); err != nil {
			t.Errorf("%s: %v", d, err)
		}
	}
}
