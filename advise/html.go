package advise

import (
	"html/template"
	"io"
	"strings"
)

// html is the advice as one self-contained page (no script, no fetched
// resource): findings first, then each recommendation's measured figures
// with their basis, its migration, and the diagnosis.
func html(w io.Writer, rep *Report) error {
	type metricRow struct{ Name, Before, After, Exactness, Source string }
	type rec struct {
		Recommendation
		Rows []metricRow
	}
	page := struct {
		*Report
		Headline []string
		Recs     []rec
		Noise    string
	}{Report: rep, Headline: headline(rep)}
	if n := rep.Diagnosis.Noise; n != nil {
		page.Noise = percent(*n)
	}
	for _, r := range rep.Recommendations {
		x := rec{Recommendation: r}
		for _, k := range shown {
			if m, ok := r.Measured[k]; ok {
				x.Rows = append(x.Rows, metricRow{k, fig(m, m.Before), fig(m, m.After), string(m.Exactness), m.Source})
			}
		}
		page.Recs = append(page.Recs, x)
	}
	return htmlTemplate.Execute(w, page)
}

var htmlTemplate = template.Must(template.New("advise").Funcs(template.FuncMap{
	"entries": func(p *float64) string { return orDot(p, entries) },
	"scans":   func(p *float64) string { return orDot(p, scans) },
	"dbscans": func(p *int64) string { return orDot(p, dbScans) },
	"ratio":   func(p *float64) string { return orDot(p, percent) },
	"join":    strings.Join,
}).Parse(htmlSource))

const htmlSource = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="writeamp advise">
<title>writeamp advise · {{.Workload}} on {{.Server}}</title>
<style>
body { font: 14px/1.45 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #1f2328; margin: 0; padding: 24px 32px 48px; max-width: 1200px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 10px; border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }
h3 { font-size: 15px; margin: 22px 0 6px; } .sub, .basis { color: #656d76; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: 3px 10px; border-bottom: 1px solid #eaeef2; text-align: right; vertical-align: top; }
th:first-child, td:first-child, td.text { text-align: left; }
pre { background: #f6f8fa; padding: 8px 12px; border-radius: 6px; overflow-x: auto; }
ol.findings { font-size: 15px; } li { margin: 2px 0; }
</style>
</head>
<body>
<h1>writeamp advise · {{.Workload}} on {{.Server}}</h1>
{{if .Noise}}<p class="sub">The workload measured twice with no change differed by {{.Noise}} in log bytes per {{.PerOp}}: the noise a saving must exceed.</p>
{{end}}<h2 id="findings">Findings: measured on copies, largest saving of log bytes per {{.PerOp}} first</h2>
{{if .Headline}}<ol class="findings">{{range .Headline}}<li>{{.}}</li>{{end}}</ol>
{{else}}<p>No change to propose.</p>
{{end}}{{range .Notes}}<p class="sub">Note: {{.}}</p>
{{end}}{{range .Recs}}
<h3 id="r{{.Rank}}">{{.Rank}}. {{.Change}} ({{.Kind}})</h3>
{{if .Rows}}<table><thead><tr><th>metric</th><th>before</th><th>after</th><th>basis</th></tr></thead><tbody>
{{range .Rows}}<tr><td>{{.Name}}</td><td>{{.Before}}</td><td>{{.After}}</td><td class="text basis">{{.Exactness}}: {{.Source}}</td></tr>
{{end}}</tbody></table>
{{end}}<ul>{{range .Why}}<li>why: {{.}}</li>{{end}}{{range .Risks}}<li>risk: {{.}}</li>{{end}}{{range .Notes}}<li>note: {{.}}</li>{{end}}</ul>
<pre>-- up
{{.Migration.Up}}-- down
{{.Migration.Down}}</pre>
{{end}}{{if .Skipped}}<h2 id="skipped">Not measured</h2>
<ul>{{range .Skipped}}<li>{{.Change}}: {{.Error}}</li>{{end}}</ul>
{{end}}<h2 id="diagnosis">Diagnosis: the window, per {{.PerOp}}</h2>
{{if .Diagnosis.Tables}}<table><thead><tr><th>table</th><th>rows updated</th><th>HOT</th><th>moved to another page</th><th>log bytes / op</th><th>pages touched</th></tr></thead><tbody>
{{range .Diagnosis.Tables}}<tr><td>{{.Table}}</td><td>{{printf "%.0f" .RowsUpdated}}</td><td>{{ratio .HotRatio}}</td><td>{{printf "%.0f" .NewpageUpdates}}</td><td>{{printf "%.1f" .LogBytesPerOp}}</td><td>{{printf "%.0f" .PagesTouched}}</td></tr>
{{end}}</tbody></table>
{{end}}{{if .Diagnosis.Indexes}}<table><thead><tr><th>index</th><th>entries / op</th><th>scans in the window</th><th>scans on the database</th><th>constraint</th><th>why it gets entries</th></tr></thead><tbody>
{{range .Diagnosis.Indexes}}<tr><td>{{.Table}}.{{.Index}}</td><td>{{entries .EntriesPerOp}}</td><td>{{scans .Scans}}</td><td>{{dbscans .OriginalScans}}</td><td class="text">{{.Constraint}}</td><td class="text">{{join .Why "; "}}</td></tr>
{{end}}</tbody></table>
{{end}}<p class="sub">A figure shown as · is one the server does not count. Every measurement ran on a copy; the database itself was only read.</p>
</body>
</html>
`
