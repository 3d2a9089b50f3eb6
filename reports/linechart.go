package reports

import (
	"fmt"
	"html/template"
	"math"
	"strings"

	"github.com/writeamp/writeamp/result"
)

// lineChart is a rate over time, one line per run in the runs' colours: a
// step for each sampled interval (the rate is the interval's average, so
// it is drawn across the interval), a dot in its middle whose hover text
// has the figure, its exactness and source. An approx line is dashed.
type lineChart struct {
	ID, Title, Caption string
	Unit               result.Unit
	Series             []string
	Lines              [][]step // per run; nil = not sampled
	Dashed             []bool   // per run: the series is approx there
	Tips               []string // per run: exactness and source
}

// step is one interval: [From, To] seconds into the window, its rate.
type step struct{ From, To, V float64 }

func (c *lineChart) empty() bool {
	for _, l := range c.Lines {
		if len(l) > 0 {
			return false
		}
	}
	return true
}

const (
	lineW, lineH     = 720, 300
	lineLeft         = 78 // y tick labels
	lineRight        = 16
	lineBottom       = 40 // x tick labels and the axis title
	lineLegendHeight = 22
)

// SVG renders the chart; text is escaped.
func (c *lineChart) SVG() template.HTML {
	esc := template.HTMLEscapeString
	maxT, maxV := 0.0, 0.0
	for _, l := range c.Lines {
		for _, s := range l {
			maxT, maxV = math.Max(maxT, s.To), math.Max(maxV, s.V)
		}
	}
	// y in the binary unit of its largest value, so ticks read 1, 2, 3 MiB/s
	div, unit := 1.0, "/s"
	if c.Unit == result.Bytes {
		sc := result.ByteScale(maxV)
		div = math.Pow(1024, float64(sc))
		unit = []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}[sc] + "/s"
	}
	topV, yTicks := niceScale(maxV / div)
	topT, xTicks := timeScale(maxT)
	top := float64(lineLegendHeight + 8)
	plotH := float64(lineH-lineBottom) - top
	plotW := float64(lineW-lineRight) - lineLeft
	x := func(t float64) float64 { return lineLeft + plotW*t/topT }
	y := func(v float64) float64 { return top + plotH - plotH*math.Max(0, v/div)/topV }

	var b strings.Builder
	lx := 0.0
	for i, s := range c.Series {
		dash := ""
		if c.Dashed[i] {
			dash = ` stroke-dasharray="5 3"`
		}
		fmt.Fprintf(&b, `<line x1="%.0f" y1="9" x2="%.0f" y2="9" stroke="%s" stroke-width="2.5"%s/><text x="%.0f" y="13" class="lg">%s</text>`,
			lx, lx+16, seriesColor(i), dash, lx+21, esc(s))
		lx += 21 + 6.5*float64(len([]rune(s))) + 18
	}
	for _, t := range yTicks {
		label := compact(t) + unit // 2.5k/s
		if c.Unit == result.Bytes {
			label = trimZero(t) + " " + unit // 2.5 MiB/s
		}
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%.0f" y2="%.1f" class="grid"/><text x="%d" y="%.1f" class="tick" text-anchor="end">%s</text>`,
			lineLeft, y(t*div), lineLeft+plotW, y(t*div), lineLeft-6, y(t*div)+3, esc(label))
	}
	for _, t := range xTicks {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" class="grid"/><text x="%.1f" y="%.0f" class="tick" text-anchor="middle">%s s</text>`,
			x(t), top, x(t), top+plotH, x(t), top+plotH+14, trimZero(t))
	}
	fmt.Fprintf(&b, `<line x1="%d" y1="%.0f" x2="%.0f" y2="%.0f" class="axis"/><line x1="%d" y1="%.0f" x2="%d" y2="%.0f" class="axis"/>`,
		lineLeft, top+plotH, lineLeft+plotW, top+plotH, lineLeft, top, lineLeft, top+plotH)
	fmt.Fprintf(&b, `<text x="%.0f" y="%d" class="tick" text-anchor="middle">time since the window opened (s)</text>`, lineLeft+plotW/2, lineH-6)
	fmt.Fprintf(&b, `<text x="12" y="%.0f" class="tick" text-anchor="middle" transform="rotate(-90 12 %.0f)">%s</text>`, top+plotH/2, top+plotH/2, esc(c.Title))
	for i, l := range c.Lines {
		if len(l) == 0 {
			continue
		}
		var pts []string
		for _, s := range l {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f %.1f,%.1f", x(s.From), y(s.V), x(s.To), y(s.V)))
		}
		dash := ""
		if c.Dashed[i] {
			dash = ` stroke-dasharray="5 3"`
		}
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>`, strings.Join(pts, " "), seriesColor(i), dash)
		for _, s := range l {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s</title></circle>`, (x(s.From)+x(s.To))/2, y(s.V), seriesColor(i),
				esc(fmt.Sprintf("%s: %s from %.1f s to %.1f s · %s", c.Series[i], result.FormatRate(c.Unit, s.V), s.From, s.To, c.Tips[i])))
		}
	}
	return template.HTML(fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-labelledby="%s-t" viewBox="0 0 %d %d" width="%d" height="%d"><title id="%s-t">%s</title>%s</svg>`,
		esc(c.ID), lineW, lineH, lineW, lineH, esc(c.ID), esc(c.Title), b.String()))
}

// timeScale is the time axis: the end of the window rounded up to a step
// of 1, 2, 5, 10, 15, 20 or 30 seconds, minutes above, with at most 8
// gridlines (a 60 s window ends at 70 s, not at niceScale's 100).
func timeScale(maxT float64) (float64, []float64) {
	step := 1.0
	for _, st := range []float64{1, 2, 5, 10, 15, 20, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 43200, 86400} {
		step = st
		if math.Ceil(maxT/st) <= 8 {
			break
		}
	}
	top := math.Max(step, math.Ceil(maxT/step)*step)
	var ticks []float64
	for t := 0.0; t <= top+step/1000; t += step {
		ticks = append(ticks, t)
	}
	return top, ticks
}

// timelineCharts are the html's charts of sampled runs: log bytes/s and
// rows changed/s over time, one line per run.
func timelineCharts(c *Comparison) []*lineChart {
	var out []*lineChart
	for _, spec := range []struct{ name, id, title, caption string }{
		{"log_bytes", "timeline-log", "log bytes/s", "Transaction-log (WAL/redo) bytes per second over each sampled interval: the log position read every --interval, so the steps are exact where the line is solid."},
		{result.RowsChanged, "timeline-rows", "rows changed/s", "Rows inserted + updated + deleted per second over each sampled interval, from the server's statistics counters; dashed where they are approx (PostgreSQL publishes them up to a second late, so a burst can show in the next interval)."},
	} {
		ch := &lineChart{ID: spec.id, Title: spec.title, Caption: spec.caption, Unit: result.Count}
		if spec.name == "log_bytes" {
			ch.Unit = result.Bytes
		}
		for _, col := range c.Columns {
			ch.Series = append(ch.Series, col.Label)
			s := col.Run.Samples
			ser, ok := seriesOf(s, spec.name)
			var line []step
			if ok {
				for i := 1; i < len(s.Points); i++ {
					if v, ok := s.Points[i].Rate(spec.name); ok {
						line = append(line, step{From: s.Points[i-1].T, To: s.Points[i].T, V: v})
					}
				}
			}
			ch.Lines = append(ch.Lines, line)
			ch.Dashed = append(ch.Dashed, ok && ser.Exactness == result.Approx)
			ch.Tips = append(ch.Tips, string(ser.Exactness)+" · "+ser.Source)
		}
		if !ch.empty() {
			out = append(out, ch)
		}
	}
	return out
}
