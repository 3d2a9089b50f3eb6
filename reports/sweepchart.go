package reports

import (
	"fmt"
	"html/template"
	"math"
	"sort"
	"strings"

	"github.com/writeamp/writeamp/result"
)

// sweepChart is one variant of a --concurrency sweep: each wait's share of
// the workload's sampled active time at each level, one line per wait, so
// where contention begins and which wait it is read off one picture.
type sweepChart struct {
	ID, Title, Caption string
	Levels             []int
	Waits              []string    // Class.Event, largest first
	Share              [][]float64 // per wait, per level; NaN: not sampled
	Tips               [][]string
}

// sweepShown is how many waits a chart draws, and the share one must reach
// at some level to be drawn: the rest are in the tables and the json.
const (
	sweepShown    = 6
	sweepMinShare = 0.05
)

// sweepCharts draws the waits of every variant measured at two or more
// levels (a sweep labels each run with its level).
func sweepCharts(c *Comparison) []*sweepChart {
	byVariant := map[string][]*result.Run{}
	var order []string
	for _, col := range c.Columns {
		r := col.Run
		if r == nil || r.Concurrency == 0 {
			continue
		}
		if _, ok := byVariant[r.Variant]; !ok {
			order = append(order, r.Variant)
		}
		byVariant[r.Variant] = append(byVariant[r.Variant], r)
	}
	var out []*sweepChart
	for _, v := range order {
		runs := byVariant[v]
		if len(runs) < 2 {
			continue
		}
		sort.SliceStable(runs, func(i, j int) bool { return runs[i].Concurrency < runs[j].Concurrency })
		top := map[string]float64{}
		for _, r := range runs {
			for name, m := range r.Database {
				if w, ok := strings.CutPrefix(name, result.WaitSharePrefix); ok && m.OK() {
					top[w] = math.Max(top[w], m.V())
				}
			}
		}
		var waits []string
		for w, s := range top {
			if s >= sweepMinShare {
				waits = append(waits, w)
			}
		}
		if len(waits) == 0 {
			continue
		}
		sort.Slice(waits, func(i, j int) bool {
			if top[waits[i]] != top[waits[j]] {
				return top[waits[i]] > top[waits[j]]
			}
			return waits[i] < waits[j]
		})
		if len(waits) > sweepShown {
			waits = waits[:sweepShown]
		}
		ch := &sweepChart{ID: "sweep-" + v, Title: "Where " + v + "'s sessions wait, by concurrency", Waits: waits}
		var thr []string
		for _, r := range runs {
			ch.Levels = append(ch.Levels, r.Concurrency)
			thr = append(thr, fmt.Sprintf("%d: %s", r.Concurrency, compact(r.Throughput)))
		}
		for _, w := range waits {
			shares, tips := make([]float64, len(runs)), make([]string, len(runs))
			for i, r := range runs {
				m, ok := r.Database[result.WaitSharePrefix+w]
				switch {
				case ok && m.OK():
					shares[i] = m.V()
					tips[i] = fmt.Sprintf("%s at c=%d: %.1f%% of active time · %s · %s", w, r.Concurrency, 100*m.V(), m.Exactness, m.Source)
				case r.Database["wait_samples"].OK():
					tips[i] = fmt.Sprintf("%s at c=%d: not seen in any sample", w, r.Concurrency)
				default:
					shares[i] = math.NaN()
					tips[i] = fmt.Sprintf("%s at c=%d: not sampled", w, r.Concurrency)
				}
			}
			ch.Share, ch.Tips = append(ch.Share, shares), append(ch.Tips, tips)
		}
		ch.Caption = fmt.Sprintf("Share of the workload's sampled active time (approx) in each wait that reached %.0f%% at some level; operations/s by workers: %s.",
			100*sweepMinShare, strings.Join(thr, ", "))
		out = append(out, ch)
	}
	return out
}

// SVG renders the chart: levels evenly spaced (a sweep is 1, 8, 32, 64:
// its steps, not its scale, are what is compared), shares 0 to 100%.
func (c *sweepChart) SVG() template.HTML {
	esc := template.HTMLEscapeString
	legend := lineLegendHeight * ((len(c.Waits) + 2) / 3)
	plotW, plotH := float64(lineW-lineLeft-lineRight), float64(lineH-lineBottom-legend)
	x := func(i int) float64 {
		if len(c.Levels) == 1 {
			return lineLeft + plotW/2
		}
		return lineLeft + plotW*float64(i)/float64(len(c.Levels)-1)
	}
	y := func(v float64) float64 { return float64(legend) + plotH*(1-v) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`, lineW, lineH, lineW, lineH, esc(c.Title))
	for _, t := range []float64{0, 0.25, 0.5, 0.75, 1} {
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" text-anchor="end" font-size="11" dy="4">%.0f%%</text>`,
			lineLeft, lineW-lineRight, y(t), y(t), lineLeft-6, y(t), 100*t)
	}
	for i, l := range c.Levels {
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" font-size="11">%d</text>`, x(i), lineH-lineBottom+16, l)
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" font-size="11">workers (--concurrency)</text>`, lineLeft+plotW/2, lineH-6)
	for wi, w := range c.Waits {
		col := seriesColor(wi)
		var pts []string
		for i, v := range c.Share[wi] {
			if !math.IsNaN(v) {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(i), y(v)))
			}
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" stroke-dasharray="6 3" points="%s"/>`, col, strings.Join(pts, " "))
		for i, v := range c.Share[wi] {
			if !math.IsNaN(v) {
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="4" fill="%s"><title>%s</title></circle>`, x(i), y(v), col, esc(c.Tips[wi][i]))
			}
		}
		lx, ly := lineLeft+(wi%3)*((lineW-lineLeft)/3), 14+lineLegendHeight*(wi/3)
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="12" fill="%s"/><text x="%d" y="%d" font-size="11">%s</text>`, lx, ly-10, col, lx+16, ly, esc(w))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
