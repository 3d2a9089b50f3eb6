package reports

import (
	"fmt"
	"html/template"
	"math"
	"strings"
)

// Charts are drawn here as inline SVG rather than with a chart library:
// the report must open offline as one file, and every bar carries a <title>
// with its exactness and source, which neither go-analyze/charts nor
// gonum/plot emit per element. Horizontal grouped bars are all the report
// needs, and their output is deterministic, so the html golden file holds.

// palette is Paul Tol's "bright" scheme: distinguishable with the common
// colour-vision deficiencies and in greyscale print.
var palette = []string{"#4477AA", "#EE6677", "#228833", "#CCBB44", "#66CCEE", "#AA3377", "#BBBBBB"}

// seriesColor is the colour of the i-th run in every chart and table.
func seriesColor(i int) string { return palette[i%len(palette)] }

// barChart is a horizontal grouped bar chart: one group per category, one
// bar per series (run) in the same colours across the report.
type barChart struct {
	ID, Title, Caption string
	Series             []string
	Cats               []string
	Bars               [][]*bar // [category][series]; nil = no value
	Percent            bool     // values are 0..1, axis 0..100%
}

type bar struct {
	V    float64
	Text string // printed after the bar
	Tip  string // hover text: value, exactness, source
	NA   string // why there is no bar (Text is printed instead)
}

func (c *barChart) empty() bool {
	for _, g := range c.Bars {
		for _, b := range g {
			if b != nil {
				return false
			}
		}
	}
	return true
}

const (
	chartW     = 720
	chartLabel = 270
	chartRight = 96 // room for the value printed after the longest bar
	barH       = 13
	barGap     = 2
	groupGap   = 12
	legendRowH = 18
	axisH      = 22
)

// SVG renders the chart; text is escaped, so labels can be anything.
func (c *barChart) SVG() template.HTML {
	esc := template.HTMLEscapeString
	max := 0.0
	for _, g := range c.Bars {
		for _, b := range g {
			if b != nil && b.V > max {
				max = b.V
			}
		}
	}
	if c.Percent {
		max = 1
	}
	top, ticks := niceScale(max)
	if c.Percent {
		top, ticks = 1, []float64{0, 0.25, 0.5, 0.75, 1}
	}
	x0 := float64(chartLabel)
	plotW := float64(chartW-chartRight) - x0
	xOf := func(v float64) float64 {
		if top <= 0 {
			return x0
		}
		return x0 + plotW*math.Max(0, v)/top
	}

	// Legend: wrap items across rows by an estimate of the text width.
	var legend strings.Builder
	lx, ly, rows := 0.0, 12.0, 1
	for i, s := range c.Series {
		w := 18 + 6.5*float64(len([]rune(s))) + 16
		if lx > 0 && lx+w > chartW {
			lx, ly, rows = 0, ly+legendRowH, rows+1
		}
		fmt.Fprintf(&legend, `<rect x="%.0f" y="%.0f" width="12" height="12" rx="2" fill="%s"/><text x="%.0f" y="%.0f" class="lg">%s</text>`,
			lx, ly-10, seriesColor(i), lx+17, ly, esc(s))
		lx += w
	}
	y := float64(rows)*legendRowH + 8
	var body strings.Builder
	groupH := float64(len(c.Series)*(barH+barGap)) - barGap
	for ci, cat := range c.Cats {
		short := cat
		if r := []rune(cat); len(r) > 40 {
			short = string(r[:39]) + "…"
		}
		fmt.Fprintf(&body, `<text x="%.0f" y="%.1f" class="cat" text-anchor="end"><title>%s</title>%s</text>`,
			x0-8, y+groupH/2+4, esc(cat), esc(short))
		for si := range c.Series {
			b := c.Bars[ci][si]
			by := y + float64(si*(barH+barGap))
			if b == nil || b.NA != "" {
				text, why := "n/a", "not measured in this run"
				if b != nil {
					text, why = b.Text, b.NA
				}
				fmt.Fprintf(&body, `<text x="%.0f" y="%.1f" class="na"><title>%s: %s</title>%s</text>`, x0+4, by+barH-3, esc(c.Series[si]), esc(why), esc(text))
				continue
			}
			w := xOf(b.V) - x0
			if b.V > 0 && w < 1 {
				w = 1 // a non-zero value stays visible
			}
			fmt.Fprintf(&body, `<g><title>%s</title><rect x="%.0f" y="%.0f" width="%.1f" height="%d" fill="%s"/><text x="%.1f" y="%.1f" class="val">%s</text></g>`,
				esc(b.Tip), x0, by, w, barH, seriesColor(si), x0+w+4, by+barH-3, esc(b.Text))
		}
		y += groupH + groupGap
	}
	// Axis: gridlines at nice ticks, labelled below.
	var axis strings.Builder
	plotTop := float64(rows)*legendRowH + 2
	for _, t := range ticks {
		x := xOf(t)
		label := compact(t)
		if c.Percent {
			label = fmt.Sprintf("%.0f%%", 100*t)
		}
		fmt.Fprintf(&axis, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" class="grid"/><text x="%.1f" y="%.0f" class="tick" text-anchor="middle">%s</text>`,
			x, plotTop, x, y-groupGap+4, x, y-groupGap+18, label)
	}
	h := y - groupGap + axisH
	return template.HTML(fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-labelledby="%s-t" viewBox="0 0 %d %.0f" width="%d" height="%.0f"><title id="%s-t">%s</title>%s%s%s</svg>`,
		esc(c.ID), chartW, h, chartW, h, esc(c.ID), esc(c.Title), legend.String(), axis.String(), body.String()))
}

// niceScale rounds the axis up to 1, 2 or 5 times a power of ten and
// returns gridlines at a quarter or fifth of it.
func niceScale(max float64) (float64, []float64) {
	if max <= 0 || math.IsNaN(max) || math.IsInf(max, 0) {
		return 1, []float64{0}
	}
	p := math.Pow(10, math.Floor(math.Log10(max)))
	var top, step float64
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= max {
			top = m * p
			break
		}
	}
	switch top / p {
	case 1, 10:
		step = top / 5
	case 2:
		step = top / 4
	case 2.5:
		step = top / 5
	default:
		step = top / 5
	}
	var ticks []float64
	for t := 0.0; t <= top*1.0001; t += step {
		ticks = append(ticks, t)
	}
	return top, ticks
}

// compact prints an axis value briefly: 1.5k, 2M, 0.25.
func compact(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e9:
		return trimZero(v/1e9) + "G"
	case a >= 1e6:
		return trimZero(v/1e6) + "M"
	case a >= 1e3:
		return trimZero(v/1e3) + "k"
	default:
		return trimZero(v)
	}
}

func trimZero(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}
