package reports

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/result"
)

// sampledPair is two real `writeamp measure --interval 2s -- pgbench -T 6`
// results (1 and 4 clients) merged as compare merges them.
func sampledPair(t *testing.T) *result.Result {
	t.Helper()
	var in []Input
	for _, f := range []string{"timeline_c1.json", "timeline_c4.json"} {
		r, err := result.Read(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		in = append(in, Input{Path: f, Result: r})
	}
	m, err := Merge(in)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// compare of sampled results puts their timelines side by side: one column
// per run in the table and markdown, one line per run in the html charts.
func TestTimelineSideBySide(t *testing.T) {
	t.Parallel()
	r := sampledPair(t)
	for _, f := range []string{"table", "markdown", "html"} {
		var buf bytes.Buffer
		if err := Render(&buf, f, r, Options{}); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		want := []string{"log bytes/s", "rows changed/s", "863 KiB/s / 1.15 MiB/s / 6.84 MiB/s", "740 KiB/s / 1.60 MiB/s / 6.78 MiB/s",
			"4,485/s / 8,914/s / 11,640/s", "3 × 2 s", "rows inserted/s, rows updated/s, rows deleted/s, hot updates/s, commits/s: approx per interval"}
		if f == "html" {
			want = append(want, `id="chart-timeline-log"`, `id="chart-timeline-rows"`, "time since the window opened (s)")
		} else {
			want = append(want, timelineHeading)
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s lacks %q", f, w)
			}
		}
		if f == "html" {
			// two charts, one line per run in each; the rows are approx on
			// PostgreSQL (dashed), the log position exact (solid)
			lines := regexp.MustCompile(`<polyline[^>]*>`).FindAllString(out, -1)
			if len(lines) != 4 {
				t.Fatalf("want 4 lines (2 charts × 2 runs), got %d", len(lines))
			}
			for i, l := range lines {
				if dashed := strings.Contains(l, "stroke-dasharray"); dashed != (i >= 2) {
					t.Errorf("line %d dashed=%v: the log is exact, the rows approx", i, dashed)
				}
			}
			if n := strings.Count(out, "<circle"); n != 12 {
				t.Errorf("want a hover dot per interval (3 × 2 runs × 2 charts), got %d", n)
			}
		}
		golden(t, "timeline_compare."+f, buf.Bytes())
	}
}

// A result without samples renders no timeline anywhere.
func TestNoTimelineWithoutSamples(t *testing.T) {
	t.Parallel()
	for _, f := range []string{"table", "markdown", "html"} {
		var buf bytes.Buffer
		if err := Render(&buf, f, fixture(t), Options{}); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(buf.String(), "log bytes/s") || strings.Contains(buf.String(), "timeline") {
			t.Errorf("%s shows a timeline for a result without samples", f)
		}
	}
}

func TestTimeScale(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ max, top float64 }{{3.06, 4}, {6.1, 7}, {60.09, 70}, {119, 120}, {3600, 3600}, {0, 1}} {
		top, ticks := timeScale(c.max)
		if top != c.top || len(ticks) > 9 || ticks[len(ticks)-1] != top {
			t.Errorf("timeScale(%v) = %v %v, want top %v", c.max, top, ticks, c.top)
		}
	}
}
