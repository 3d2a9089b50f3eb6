package result

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// In the JSON a run's "samples" is the list of readings (what a reader
// counts and plots) and "timeline" describes them: the period, each series
// with its unit, exactness and source, and the notes. Files written before
// the readings moved to their own list held all of it in one "samples"
// object; they are still read.

type timelineJSON struct {
	IntervalSeconds float64        `json:"interval_seconds"`
	Series          []SampleSeries `json:"series"`
	Notes           []string       `json:"notes,omitempty"`
}

// runPlain is Run without its MarshalJSON, embedded in runJSON.
type runPlain Run

// runJSON is Run as written: plain's own "samples" field is hidden by the
// shallower one here (encoding/json takes the least nested field of a name).
type runJSON struct {
	runPlain
	Samples  []SamplePoint `json:"samples,omitempty"`
	Timeline *timelineJSON `json:"timeline,omitempty"`
}

func (r Run) MarshalJSON() ([]byte, error) {
	out := runJSON{runPlain: runPlain(r)}
	if s := r.Samples; s != nil {
		out.Samples = s.Points
		if out.Samples == nil {
			out.Samples = []SamplePoint{} // a timeline with no reading still says so
		}
		out.Timeline = &timelineJSON{IntervalSeconds: s.IntervalSeconds, Series: s.Series, Notes: s.Notes}
	}
	return json.Marshal(out)
}

func (r *Run) UnmarshalJSON(b []byte) error {
	var in struct {
		runPlain
		Samples  json.RawMessage `json:"samples"`
		Timeline *timelineJSON   `json:"timeline"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*r = Run(in.runPlain)
	r.Samples = nil
	raw := bytes.TrimSpace(in.Samples)
	switch {
	case len(raw) == 0 || bytes.Equal(raw, []byte("null")):
		if in.Timeline != nil {
			r.Samples = &Samples{IntervalSeconds: in.Timeline.IntervalSeconds, Series: in.Timeline.Series, Notes: in.Timeline.Notes}
		}
	case raw[0] == '{': // the earlier shape: one object
		var s Samples
		if err := json.Unmarshal(raw, &s); err != nil {
			return fmt.Errorf("samples: %w", err)
		}
		r.Samples = &s
	default:
		var pts []SamplePoint
		if err := json.Unmarshal(raw, &pts); err != nil {
			return fmt.Errorf("samples: %w", err)
		}
		if in.Timeline == nil {
			return fmt.Errorf("samples: %d readings without the \"timeline\" that names their series", len(pts))
		}
		r.Samples = &Samples{IntervalSeconds: in.Timeline.IntervalSeconds, Series: in.Timeline.Series, Points: pts, Notes: in.Timeline.Notes}
	}
	return nil
}
