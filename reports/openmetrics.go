package reports

import (
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"google.golang.org/protobuf/proto"

	"github.com/writeamp/writeamp/result"
)

// OpenMetrics writes a result as OpenMetrics text (node_exporter's
// textfile collector, a Pushgateway, anything that scrapes Prometheus):
// one gauge family per metric of the catalogue, a sample per run and
// object, labelled dialect, variant, table, index, exactness and source.
// A metric that could not be measured has no sample (never a false zero):
// writeamp_metric_unavailable names it with the reason.
func OpenMetrics(w io.Writer, res *result.Result) error {
	return WriteOpenMetrics(w, Families(res))
}

// WriteOpenMetrics writes families as OpenMetrics 1.0 text, ending # EOF.
func WriteOpenMetrics(w io.Writer, fams []*dto.MetricFamily) error {
	for _, f := range fams {
		if _, err := expfmt.MetricFamilyToOpenMetrics(w, f); err != nil {
			return err
		}
	}
	_, err := expfmt.FinalizeOpenMetrics(w)
	return err
}

// omName is a metric's family name, unit and the factor its values are
// scaled by, as Prometheus' naming guide asks: base units (seconds, not
// milliseconds) in the name's suffix. Counts carry no unit.
func omName(name string) (family, unit string, scale float64, labels []*dto.LabelPair) {
	for _, p := range []struct{ prefix, family string }{
		{result.SessionWaitsPrefix, "session_waits"}, {result.WaitsPrefix, "waits"},
	} {
		if ev, ok := strings.CutPrefix(name, p.prefix); ok {
			if ev, ok := strings.CutSuffix(ev, "_ms"); ok {
				return "writeamp_" + strings.TrimSuffix(p.family, "s") + "_seconds", "seconds", 1e-3, []*dto.LabelPair{label("event", ev)}
			}
			return "writeamp_" + p.family, "", 1, []*dto.LabelPair{label("event", ev)}
		}
	}
	if st, ok := strings.CutPrefix(name, result.OpWaitSharePrefix); ok {
		op, st, _ := strings.Cut(st, ".")
		return "writeamp_op_wait_share_ratio", "ratio", 1, []*dto.LabelPair{label("operation", op), label("state", st)}
	}
	if st, ok := strings.CutPrefix(name, result.WaitSharePrefix); ok {
		return "writeamp_wait_share_ratio", "ratio", 1, []*dto.LabelPair{label("state", st)}
	}
	base := "writeamp_" + invalidName.ReplaceAllString(name, "_")
	info, _ := result.Lookup(name)
	switch info.Unit {
	case result.Bytes:
		return withSuffix(base, "_bytes"), "bytes", 1, nil
	case result.Millis:
		return withSuffix(strings.TrimSuffix(base, "_ms"), "_seconds"), "seconds", 1e-3, nil
	case result.Fraction:
		return withSuffix(base, "_ratio"), "ratio", 1, nil
	}
	return unreserved(base), "", 1, nil
}

// reservedSuffixes are the name endings OpenMetrics gives the samples of
// counters (_total, _created), histograms and summaries (_count, _sum,
// _bucket); a gauge named so is rejected (promtool check metrics), so such
// a family is renamed here while the JSON keeps the catalogue's name.
var reservedSuffixes = []string{"_count", "_sum", "_bucket", "_total", "_created"}

func unreserved(family string) string {
	// fpi_count counts the records that carry a full-page image.
	if f, ok := strings.CutSuffix(family, "_fpi_count"); ok {
		return f + "_fpi_records"
	}
	for _, suf := range reservedSuffixes {
		if strings.HasSuffix(family, suf) {
			return family + "s"
		}
	}
	return family
}

var invalidName = regexp.MustCompile(`[^a-zA-Z0-9_]`)

func withSuffix(s, suffix string) string {
	if strings.HasSuffix(s, suffix) {
		return s
	}
	return s + suffix
}

func label(name, value string) *dto.LabelPair {
	return &dto.LabelPair{Name: proto.String(name), Value: proto.String(value)}
}

// Families are the result's metric families, in catalogue order, with
// writeamp_operations and writeamp_elapsed_seconds per run.
func Families(res *result.Result) []*dto.MetricFamily {
	byName := map[string]*dto.MetricFamily{}
	order := map[string]int{}
	family := func(name, unit, help string, at int) *dto.MetricFamily {
		f := byName[name]
		if f == nil {
			f = &dto.MetricFamily{Name: proto.String(name), Help: proto.String(help), Type: dto.MetricType_GAUGE.Enum()}
			if unit != "" {
				f.Unit = proto.String(unit)
			}
			byName[name], order[name] = f, at
		}
		return f
	}
	gauge := func(f *dto.MetricFamily, v float64, labels []*dto.LabelPair) {
		f.Metric = append(f.Metric, &dto.Metric{Label: labels, Gauge: &dto.Gauge{Value: proto.Float64(v)}})
	}
	unavailable := family("writeamp_metric_unavailable", "", "a metric writeamp could not measure on this server (1 per metric and object; the reason label says why): it has no sample of its own", -1)
	for i := range res.Runs {
		run := &res.Runs[i]
		variant := run.Variant
		if run.Label != "" {
			variant = run.Label
		}
		runLabels := []*dto.LabelPair{label("dialect", res.Server.Dialect), label("variant", variant)}
		if run.Concurrency > 0 {
			runLabels = append(runLabels, label("concurrency", strconv.Itoa(run.Concurrency)))
		}
		add := func(obj []*dto.LabelPair, metrics map[string]result.Metric) {
			names := make([]string, 0, len(metrics))
			for n := range metrics {
				names = append(names, n)
			}
			result.SortNames(names)
			for _, n := range names {
				m := metrics[n]
				ls := append(append([]*dto.LabelPair(nil), runLabels...), obj...)
				if !m.OK() {
					why := m.Note
					if why == "" {
						why = "not measured"
					}
					gauge(unavailable, 1, append(ls, label("metric", n), label("reason", why), label("source", m.Source)))
					continue
				}
				name, unit, scale, extra := omName(n)
				info, _ := result.Lookup(n)
				help := info.Label
				if help == "" {
					help = n
				}
				f := family(name, unit, strings.TrimSpace(help)+" in the measured window (writeamp "+n+"; per sample: source and exactness)", info.Order)
				gauge(f, m.V()*scale, append(append(ls, extra...), label("exactness", string(m.Exactness)), label("source", m.Source)))
			}
		}
		add(nil, run.Database)
		for _, t := range run.Tables {
			add(objectLabels(t, false), t.Metrics)
		}
		for _, ix := range run.Indexes {
			add(objectLabels(ix, true), ix.Metrics)
		}
		ops := family("writeamp_operations", "", "operations the workload completed in the window, by kind", -3)
		for op, n := range run.Operations {
			gauge(ops, float64(n), append(append([]*dto.LabelPair(nil), runLabels...), label("operation", op)))
		}
		gauge(family("writeamp_elapsed_seconds", "seconds", "length of the measured window", -2), run.ElapsedSeconds, runLabels)
	}
	var out []*dto.MetricFamily
	for _, f := range byName {
		if len(f.Metric) > 0 {
			sortMetrics(f)
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].GetName(), out[j].GetName()
		if order[a] != order[b] {
			return order[a] < order[b]
		}
		return a < b
	})
	return out
}

func objectLabels(o result.Object, index bool) []*dto.LabelPair {
	var ls []*dto.LabelPair
	// The built-in workload's schema is named after its run: as a label it
	// would start a new series on every run.
	perRun := strings.HasPrefix(o.Schema, "writeamp_rt_")
	if o.Schema != "" && !perRun {
		ls = append(ls, label("schema", o.Schema))
	}
	if index {
		ls = append(ls, label("table", o.Table), label("index", o.Name))
	} else {
		ls = append(ls, label("table", o.Name))
	}
	// A part (a partition, a TOAST table or index) is counted in its whole
	// too: part_of lets a sum over tables leave it out (part_of=""). The
	// whole is in the part's schema, so it drops a per-run schema too.
	if p := o.PartOf(); p != "" {
		if perRun {
			p = p[strings.Index(p, ".")+1:]
		}
		ls = append(ls, label("part_of", p))
	}
	return ls
}

// sortMetrics orders a family's samples by their labels, so the output of
// one result is always the same text.
func sortMetrics(f *dto.MetricFamily) {
	key := func(m *dto.Metric) string {
		var b strings.Builder
		for _, l := range m.Label {
			fmt.Fprintf(&b, "%s=%s\x00", l.GetName(), l.GetValue())
		}
		return b.String()
	}
	sort.SliceStable(f.Metric, func(i, j int) bool { return key(f.Metric[i]) < key(f.Metric[j]) })
}
