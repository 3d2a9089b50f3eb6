package result

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func sampledRun() Run {
	return Run{
		Variant: "v", Operations: map[string]int64{}, Database: map[string]Metric{},
		Samples: &Samples{
			IntervalSeconds: 1,
			Series:          []SampleSeries{{Name: "log_bytes", Unit: Bytes, Exactness: Exact, Source: "lsn"}},
			Points: []SamplePoint{
				{T: 0, Values: map[string]float64{"log_bytes": 0}},
				{T: 1, Values: map[string]float64{"log_bytes": 10}, Rates: map[string]float64{"log_bytes": 10}},
			},
			Notes: []string{"n"},
		},
	}
}

// A reader counts a run's readings as the length of "samples"; what they
// are sits beside them in "timeline".
func TestSamplesAreTheReadingsInTheJSON(t *testing.T) {
	b, err := json.Marshal(sampledRun())
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	var pts []map[string]any
	if err := json.Unmarshal(raw["samples"], &pts); err != nil || len(pts) != 2 {
		t.Fatalf("samples = %s, want a list of 2 readings (%v)", raw["samples"], err)
	}
	var tl map[string]any
	if err := json.Unmarshal(raw["timeline"], &tl); err != nil || tl["interval_seconds"] != 1.0 || tl["series"] == nil || tl["notes"] == nil {
		t.Fatalf("timeline = %s (%v)", raw["timeline"], err)
	}
	var back Run
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(sampledRun(), back); d != "" {
		t.Fatalf("round trip (-want +got):\n%s", d)
	}
	if b2, _ := json.Marshal(Run{Variant: "v"}); strings.Contains(string(b2), "samples") || strings.Contains(string(b2), "timeline") {
		t.Fatalf("a run without --interval writes %s", b2)
	}
}

func TestSamplesEarlierShapeStillRead(t *testing.T) {
	old := `{"variant":"v","operations":{},"database":{},"tables":null,"indexes":null,"elapsed_seconds":0,
	  "samples":{"interval_seconds":1,"series":[{"name":"log_bytes","unit":"bytes","exactness":"exact","source":"lsn"}],
	  "points":[{"t":0,"values":{"log_bytes":0}},{"t":1,"values":{"log_bytes":10},"rates":{"log_bytes":10}}],"notes":["n"]}}`
	var r Run
	if err := json.Unmarshal([]byte(old), &r); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(sampledRun().Samples, r.Samples); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
	bad := `{"variant":"v","samples":[{"t":0,"values":{"log_bytes":0}}]}`
	if err := json.Unmarshal([]byte(bad), &r); err == nil || !strings.Contains(err.Error(), "timeline") {
		t.Fatalf("readings without their timeline: err = %v", err)
	}
}
