package reports

import (
	"fmt"
	"html/template"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/writeamp/writeamp/result"
)

// HTML writes one self-contained page: charts (inline SVG), then the same
// tables as the other formats. Nothing is loaded at view time (no scripts,
// fonts or stylesheets from elsewhere), so it can be mailed or attached to a
// ticket. Every number has its exactness and source on hover and in the
// footnotes.
func HTML(w io.Writer, res *result.Result) error { return htmlOf(w, res, FromResult(res)) }

func htmlOf(w io.Writer, res *result.Result, c *Comparison) error {
	page := htmlPage{C: c, Tool: res.Tool, Server: res.Server.Name, Created: res.CreatedAt, Title: htmlTitle(res, c)}
	for i, col := range c.Columns {
		page.Series = append(page.Series, htmlSeries{Label: col.Label, Color: seriesColor(i)})
	}
	page.Charts = charts(c)
	page.Timeline = timelineCharts(c)
	page.Sweep = sweepCharts(c)
	page.Findings, page.MoreFindings = shown(c)
	page.FindingsHeading = findingsHeading(c)
	page.RunLines = RunLines(c)
	page.Tables = runTables(c)
	for _, s := range c.Sections {
		if len(s.Rows) > 0 {
			page.Sections = append(page.Sections, s)
		}
	}
	return htmlTemplate.Execute(w, page)
}

// htmlTitle names what the page compares, so a tab or a bookmark says
// it: "refresh-token: baseline vs coarse on PostgreSQL 15", a wrapped
// command by its own words rather than "command".
func htmlTitle(res *result.Result, c *Comparison) string {
	name := res.Workload.Name
	if cmd, ok := res.Workload.Params["command"].(string); ok && name == "command" && cmd != "" {
		if r := []rune(cmd); len(r) > 60 {
			cmd = string(r[:59]) + "…"
		}
		name = cmd
	}
	var labels []string
	for _, col := range c.Columns {
		labels = append(labels, col.Label)
	}
	t := strings.Join(labels, " vs ")
	if name != "" {
		t = name + ": " + t
	}
	return t + " on " + res.Server.Name
}

type htmlPage struct {
	C        *Comparison
	Title    string // the browser tab's: what ran, its columns, where
	Tool     result.Tool
	Server   string
	Created  string
	Series   []htmlSeries
	Charts   []*barChart
	Timeline []*lineChart  // rates over time of runs sampled with --interval
	Sweep    []*sweepChart // wait shares by level of a --concurrency sweep
	RunLines []RunLine
	Sections []Section
	Tables   []runTable // per run: log per operation, top statements
	// Findings lead the page, above the charts.
	Findings        []result.Finding
	MoreFindings    int
	FindingsHeading string
}

type htmlSeries struct{ Label, Color string }

func unitSuffix(c *Comparison) string {
	if c.PerOp == "" {
		return ""
	}
	return " per " + c.PerOp
}

// tip is the hover text of a number: what it is, how exact, from where.
func tip(label string, m result.Metric, extra string) string {
	parts := []string{label}
	if extra != "" {
		parts = append(parts, extra)
	}
	parts = append(parts, string(m.Exactness))
	if m.Source != "" {
		parts = append(parts, m.Source)
	}
	if m.Note != "" {
		parts = append(parts, m.Note)
	}
	return strings.Join(parts, " · ")
}

// metricBars turns one comparison row into a chart group: per unit when the
// comparison normalizes, else the totals.
func metricBars(c *Comparison, name string, row Row) []*bar {
	out := make([]*bar, len(c.Columns))
	for i, cell := range row.Cells {
		switch {
		case !cell.Present:
			out[i] = &bar{Text: "—", NA: "the object does not exist in this run"}
			continue
		case !cell.Metric.OK():
			why := cell.Metric.Note
			if why == "" {
				why = "not measured"
			}
			out[i] = &bar{Text: "n/a", NA: "unavailable: " + why}
			continue
		}
		// the short form after a bar (the exact count would not fit); the
		// hover text has the total as the table writes it
		b := &bar{V: cell.Metric.V(), Text: result.FormatShort(name, cell.Metric.V())}
		total := "total " + cell.Text
		if cell.PerOp != nil && !isRatio(name) {
			b.V, b.Text = *cell.PerOp, cell.PerText
		} else {
			total = ""
		}
		b.Tip = tip(c.Columns[i].Label+": "+b.Text+map[bool]string{true: unitSuffix(c), false: ""}[cell.PerOp != nil && !isRatio(name)], cell.Metric, total)
		out[i] = b
	}
	return out
}

func charts(c *Comparison) []*barChart {
	var labels []string
	for _, col := range c.Columns {
		labels = append(labels, col.Label)
	}
	newChart := func(id, title, caption string) *barChart {
		return &barChart{ID: id, Title: title, Caption: caption, Series: labels}
	}
	leaf := newChart("leaf", "Index leaf inserts"+unitSuffix(c), "Entries added to each index's leaf pages. A non-HOT update adds one to every index of its table; a HOT update to none.")
	logb := newChart("log", "Log bytes"+unitSuffix(c), "Transaction-log (WAL/redo) bytes written in the window, and the part the measured objects account for where the server can tell.")
	hot := newChart("hot", "HOT ratio", "Share of updates that stayed on their heap page and touched no index (PostgreSQL).")
	hot.Percent = true
	for _, s := range c.Sections {
		for _, r := range s.Rows {
			info, _ := result.Lookup(r.Metric)
			if info.Chart == "" || string(info.ChartLevel) != s.Kind {
				continue
			}
			switch info.Chart {
			case "leaf":
				// The index name alone: the table is in the hover text and
				// in the section title below, and long names would be cut.
				name, _, _ := strings.Cut(strings.TrimPrefix(s.Title, "Index "), " on ")
				leaf.Cats = append(leaf.Cats, name)
				leaf.Bars = append(leaf.Bars, metricBars(c, r.Metric, r))
			case "log":
				logb.Cats = append(logb.Cats, strings.TrimSpace(r.Label))
				logb.Bars = append(logb.Bars, metricBars(c, r.Metric, r))
			case "hot":
				hot.Cats = append(hot.Cats, strings.TrimPrefix(s.Title, "Table "))
				hot.Bars = append(hot.Bars, metricBars(c, r.Metric, r))
			}
		}
	}
	lat := newChart("latency", "Latency percentiles (ms)", "Per operation type, from the driver's HdrHistogram (3 significant digits); the maximum is in the table below.")
	ops := map[string]bool{}
	for _, col := range c.Columns {
		for op := range col.Run.LatencyMS {
			ops[op] = true
		}
	}
	for _, op := range slices.Sorted(maps.Keys(ops)) {
		for _, p := range []string{"p50", "p95", "p99"} {
			g := make([]*bar, len(c.Columns))
			for i, col := range c.Columns {
				l, ok := col.Run.LatencyMS[op]
				if !ok {
					continue
				}
				v := map[string]float64{"p50": l.P50, "p95": l.P95, "p99": l.P99}[p]
				g[i] = &bar{V: v, Text: fmt.Sprintf("%.2f ms", v),
					Tip: fmt.Sprintf("%s: %s %s %.3f ms of %d operations · approx · HdrHistogram of the driver's timings", col.Label, op, p, v, l.Count)}
			}
			lat.Cats = append(lat.Cats, op+" "+p)
			lat.Bars = append(lat.Bars, g)
		}
	}
	thr := newChart("throughput", "Throughput (operations/s)", "All operations of the run divided by its elapsed time.")
	g := make([]*bar, len(c.Columns))
	n := 0
	for i, col := range c.Columns {
		if col.Run.Throughput > 0 {
			n++
			g[i] = &bar{V: col.Run.Throughput, Text: count(float64(int64(col.Run.Throughput))),
				Tip: fmt.Sprintf("%s: %.1f operations/s · derived · operations / elapsed (%.2f s)", col.Label, col.Run.Throughput, col.Run.ElapsedSeconds)}
		}
	}
	if n > 1 {
		thr.Cats, thr.Bars = []string{"operations/s"}, [][]*bar{g}
	}
	var out []*barChart
	for _, ch := range []*barChart{leaf, logb, hot, lat, thr} {
		if !ch.empty() {
			out = append(out, ch)
		}
	}
	return out
}

// cellTitle is the hover text of a table cell.
func cellTitle(c *Comparison, col int, r Row) string {
	cell := r.Cells[col]
	switch {
	case !cell.Present:
		return c.Columns[col].Label + ": the object does not exist in this run"
	case cell.Metric.Exactness == "":
		return c.Columns[col].Label + ": not measured"
	}
	return tip(c.Columns[col].Label+": "+r.Label, cell.Metric, "")
}

func exactClass(r Row) string {
	switch {
	case strings.Contains(r.Basis, "unavailable"):
		return "na"
	case strings.Contains(r.Basis, "approx"):
		return "approx"
	case strings.Contains(r.Basis, "derived"):
		return "derived"
	}
	return "exact"
}

// changeClass colours a change by the catalogue's better direction: more
// writes are worse, a higher HOT ratio is better, more rows changed is
// neither (the work itself).
func changeClass(r Row) string {
	v := r.ChangeV
	switch info(r.Metric).Better {
	case result.Higher:
		v = -v
	case result.Neither:
		return ""
	}
	switch {
	case v > 0:
		return "up"
	case v < 0:
		return "down"
	}
	return ""
}

var htmlTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"cellTitle":   cellTitle,
	"exactClass":  exactClass,
	"changeClass": changeClass,
	"add":         func(a, b int) int { return a + b },
	"cols": func(c *Comparison) int {
		n := 1 + len(c.Columns) + 1
		if c.PerOp != "" {
			n += len(c.Columns)
		}
		if len(c.Columns) > 1 {
			n++
		}
		return n
	},
	"multi":           func(c *Comparison) bool { return len(c.Columns) > 1 },
	"timelineHeading": func() string { return "min / median / max per second" },
	"claimsHeading":   claimsHeading,
	"verdictText":     VerdictText,
	"verdictClass":    verdictClass,
	"claimBasis":      basisOf,
}).Parse(htmlSource))

const htmlSource = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="{{.Tool.Name}} {{.Tool.Version}}">
<title>{{.Title}}</title>
<style>
:root { --fg:#1f2328; --muted:#656d76; --line:#d0d7de; --bg:#ffffff; --band:#f6f8fa; }
* { box-sizing: border-box; }
body { font: 14px/1.45 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: var(--fg); background: var(--bg); margin: 0; padding: 24px 32px 48px; max-width: 1440px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 10px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 14px; margin: 0 0 2px; }
.sub { color: var(--muted); margin: 0; }
.legend { margin: 14px 0 0; display: flex; flex-wrap: wrap; gap: 6px 18px; }
.legend span::before { content: ""; display: inline-block; width: 12px; height: 12px; border-radius: 2px; margin-right: 6px; vertical-align: -1px; background: var(--c); }
.charts { display: grid; align-items: start; grid-template-columns: repeat(auto-fit, minmax(560px, 1fr)); gap: 18px 28px; }
figure { margin: 0; padding: 12px 14px; border: 1px solid var(--line); border-radius: 6px; }
figcaption { color: var(--muted); font-size: 12px; margin-bottom: 8px; }
svg { max-width: 100%; height: auto; font: 12px -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; }
svg .cat { fill: var(--fg); } svg .val { fill: var(--fg); font-size: 11px; } svg .lg { fill: var(--fg); }
svg .axis { stroke: var(--muted); stroke-width: 1; } svg .tick { fill: var(--muted); font-size: 10px; } svg .grid { stroke: #eaeef2; stroke-width: 1; } svg .na { fill: var(--muted); font-size: 11px; font-style: italic; }
.wide { overflow-x: auto; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; margin-top: 6px; }
th, td { padding: 3px 10px; border-bottom: 1px solid #eaeef2; text-align: right; white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
thead th { position: sticky; top: 0; background: var(--bg); border-bottom: 2px solid var(--line); }
tr.section td { background: var(--band); font-weight: 600; text-align: left; padding-top: 8px; }
td.per { color: var(--muted); }
td.basis { text-align: left; color: var(--muted); }
td.basis.derived { font-style: italic; } td.basis.approx { color: #9a6700; } td.basis.na { color: #cf222e; }
td[title] { cursor: help; }
td.up { color: #cf222e; } td.down { color: #1a7f37; }
a { color: #0969da; }
ol, ul { padding-left: 22px; } li { margin: 2px 0; }
ol.findings { font-size: 15px; } ol.findings li[title] { cursor: help; }
.foot { color: var(--muted); font-size: 12px; }
table.claims td { white-space: normal; text-align: left; vertical-align: top; max-width: 440px; } td.muted { color: var(--muted); }
</style>
</head>
<body>
<h1>{{.C.Title}}</h1>
{{range .C.Subtitle}}<p class="sub">{{.}}</p>
{{end}}<div class="legend">{{range .Series}}<span style="--c:{{.Color}}">{{.Label}}</span>{{end}}</div>
{{if .Findings}}<h2 id="findings">Findings</h2>
<p class="foot">{{.FindingsHeading}}; hover one for the rule that makes it count.</p>
<ol class="findings">{{range .Findings}}<li title="{{.Exactness}} · {{.Rule}}">{{.Text}}</li>{{end}}</ol>
{{if .MoreFindings}}<p class="foot">…and {{.MoreFindings}} smaller changes beyond noise (every one in the JSON's findings).</p>
{{end}}<p class="foot">{{.C.FindingsRule}}</p>
{{end}}{{if .C.Claims}}<h2 id="claims">Claims</h2>
<p class="foot">{{claimsHeading .C}}; hover a verdict for its rule.</p>
<div class="wide"><table class="claims">
<thead><tr><th>#</th><th>claim</th><th>measured here</th><th>basis</th><th>verdict</th></tr></thead>
<tbody>{{range $i, $cl := .C.Claims}}<tr><td>{{add $i 1}}</td><td>{{$cl.Claim}}</td><td>{{$cl.Measured}}</td><td class="basis">{{claimBasis $cl}}</td><td class="{{verdictClass $cl}}" title="{{$cl.Rule}}">{{verdictText $cl}}</td></tr>
{{end}}</tbody></table></div>
<p class="foot">rules:</p>
<ol class="foot">{{range .C.Claims}}<li>{{.Rule}}</li>{{end}}</ol>
{{end}}{{if .Charts}}<h2>Charts</h2>
<p class="foot">Hover a bar for its exact value, exactness and source.</p>
<div class="charts">
{{range .Charts}}<figure id="chart-{{.ID}}"><h3>{{.Title}}</h3><figcaption>{{.Caption}}</figcaption>{{.SVG}}</figure>
{{end}}</div>
{{end}}{{if .Sweep}}<h2 id="sweep">Waits by concurrency</h2>
<p class="foot">Each wait's share of the workload's sampled active time at each --concurrency level, one chart per variant (dashed: sampled, approx); hover a point for its figure and sample count.</p>
<div class="charts">
{{range .Sweep}}<figure id="chart-{{.ID}}"><h3>{{.Title}}</h3><figcaption>{{.Caption}}</figcaption>{{.SVG}}</figure>
{{end}}</div>
{{end}}{{if .Timeline}}<h2 id="timeline">Timeline</h2>
<p class="foot">Rates per second over each sampled interval (--interval), one line per run; hover a step's dot for its figure, exactness and source.</p>
<div class="charts">
{{range .Timeline}}<figure id="chart-{{.ID}}"><h3>{{.Title}}</h3><figcaption>{{.Caption}}</figcaption>{{.SVG}}</figure>
{{end}}</div>
{{with .C.Timeline}}<div class="wide"><table>
<thead><tr><th>{{timelineHeading}}</th>{{range $.C.Columns}}<th>{{.Label}}</th>{{end}}<th>basis [source]</th></tr></thead>
<tbody>{{range .Rows}}<tr><td>{{.Label}}</td>{{range .Cells}}<td>{{.}}</td>{{end}}<td class="basis">{{.Basis}}{{if .Refs}} [{{range $j, $n := .Refs}}{{if $j}},{{end}}<a href="#src-{{$n}}">{{$n}}</a>{{end}}]{{end}}</td></tr>
{{end}}</tbody></table></div>
{{end}}{{end}}<h2>Numbers</h2>
<p class="foot">Hover a number for its exactness and source; the basis column links to the source footnotes.</p>
<div class="wide"><table>
<thead><tr><th>metric</th>{{range .C.Columns}}<th>{{.Label}}</th>{{if $.C.PerOp}}<th>per {{$.C.PerOp}}</th>{{end}}{{end}}{{if multi .C}}<th>change</th>{{end}}<th>basis [source]</th></tr></thead>
<tbody>
<tr class="section"><td colspan="{{cols .C}}">Run</td></tr>
{{range .RunLines}}<tr><td>{{.Label}}</td>{{range .Values}}<td title="measured by writeamp, not the server">{{.}}</td>{{if $.C.PerOp}}<td></td>{{end}}{{end}}{{if multi $.C}}<td></td>{{end}}<td class="basis">driver</td></tr>
{{end}}{{range .Sections}}<tr class="section"><td colspan="{{cols $.C}}">{{.Title}}</td></tr>
{{range $r := .Rows}}<tr><td>{{$r.Label}}</td>{{range $i, $cell := $r.Cells}}<td title="{{cellTitle $.C $i $r}}">{{$cell.Text}}</td>{{if $.C.PerOp}}<td class="per" title="{{cellTitle $.C $i $r}} · divided by the {{$.C.PerOp}} count">{{$cell.PerText}}</td>{{end}}{{end}}{{if multi $.C}}<td class="{{changeClass $r}}">{{$r.Change}}</td>{{end}}<td class="basis {{exactClass $r}}">{{$r.Basis}}{{if $r.Refs}} [{{range $j, $n := $r.Refs}}{{if $j}},{{end}}<a href="#src-{{$n}}">{{$n}}</a>{{end}}]{{end}}</td></tr>
{{end}}{{end}}</tbody>
</table></div>
<p class="foot">basis: exact = counted by the server; derived = computed by the stated rule; approx = a proxy; n/a = unavailable (see notes); · = not reported in that run; — = object absent in that run.{{if and .C.PerOp (multi .C)}} change: last column vs first, per {{.C.PerOp}} (ratios in percentage points).{{end}}</p>
<h2>Sources</h2>
<ol>{{range $i, $s := .C.Sources}}<li id="src-{{add $i 1}}">{{$s}}</li>{{end}}</ol>
{{range .Tables}}<h2>{{.Title}}</h2>
<div class="wide"><table>
<thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody></table></div>
{{range .Foot}}<p class="foot">{{.}}</p>
{{end}}{{end}}{{if .C.Notes}}<h2>Notes</h2>
<ul>{{range .C.Notes}}<li>{{.}}</li>{{end}}</ul>
{{end}}<p class="foot">{{.Tool.Name}} {{.Tool.Version}}{{if .Created}} · {{.Created}}{{end}} · {{.Server}}</p>
</body>
</html>
`
