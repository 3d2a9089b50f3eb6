package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/result"
)

func liveSamples() *result.Samples {
	return &result.Samples{IntervalSeconds: 1,
		Series: []result.SampleSeries{{Name: "log_bytes", Unit: result.Bytes, Exactness: result.Exact},
			{Name: "rows_inserted", Unit: result.Count, Exactness: result.Approx}, {Name: "rows_updated", Unit: result.Count, Exactness: result.Approx},
			{Name: "rows_deleted", Unit: result.Count, Exactness: result.Approx}, {Name: "transactions_committed", Unit: result.Count, Exactness: result.Approx}},
		Points: []result.SamplePoint{{T: 0, Values: map[string]float64{}}}}
}

func TestLiveLineRendering(t *testing.T) {
	t.Parallel()
	s := liveSamples()
	if got := liveText(s); got != "measuring 0s · log … · rows … · commits …" {
		t.Errorf("before the first interval: %q", got)
	}
	s.Points = append(s.Points, result.SamplePoint{T: 12.4, Values: map[string]float64{},
		Rates: map[string]float64{"log_bytes": 3.5 * 1024 * 1024, "rows_inserted": 1000, "rows_updated": 2345, "rows_deleted": 5, "transactions_committed": 812.5}})
	want := "measuring 12s · log 3.50 MiB/s · rows ~3,350/s · commits ~813/s"
	if got := liveText(s); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	var b bytes.Buffer
	l := newLiveLine(&b, true, false)
	l.update(s)
	l.update(s)
	l.clear()
	l.clear() // once is enough
	if got := b.String(); got != clearLine+want+clearLine+want+clearLine {
		t.Errorf("terminal output %q: each update redraws the line in place, clear erases it once", got)
	}
}

func TestNoLiveLineOffATerminalOrWhenQuiet(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	for _, l := range []*liveLine{newLiveLine(&b, false, false), newLiveLine(&b, true, true)} {
		if l != nil {
			t.Fatal("a live line off a terminal or with --quiet")
		}
		l.clear() // nil-safe, as measure defers it
	}
	if tl := timelineFor(0, nil); tl != nil {
		t.Errorf("no --interval and no terminal: no sampler at all, got %+v", tl)
	}
	if tl := timelineFor(0, &liveLine{w: &b}); tl == nil || tl.Keep || tl.Every.Seconds() != 1 {
		t.Errorf("a terminal without --interval: live each second, nothing stored; got %+v", tl)
	}
	if b.Len() != 0 {
		t.Errorf("wrote %q", b.String())
	}
}

func TestIntervalBelowOneSecondIsRefused(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"measure", "--dsn", closedPG, "--interval", "500ms", "--", "true"},
		{"run", "--dsn", closedPG, "--interval", "200ms"},
		{"measure", "--dsn", closedPG, "--interval", "-5s", "--", "true"},
	} {
		_, _, err := run(t, args...)
		var ue usageError
		if err == nil || !errors.As(err, &ue) || !strings.Contains(err.Error(), "--interval") {
			t.Errorf("%v: got %v, want a usage error naming --interval (before connecting)", args, err)
		}
	}
}
