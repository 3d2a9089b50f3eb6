package reports

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/writeamp/writeamp/internal/testing/race"
	"github.com/writeamp/writeamp/result"
)

// parseOpenMetrics reads text with expfmt's OpenMetrics 1.0 parser (its
// ABNF grammar), then again with the Prometheus text parser a Pushgateway
// and node_exporter use: both must accept it. Under the race detector the
// grammar's parser (a GLL parser, milliseconds a line) takes a quarter of
// make test-unit's CPU: there the text parser alone reads the families, and
// make test holds the text to the grammar.
func parseOpenMetrics(t *testing.T, text []byte) map[string]*dto.MetricFamily {
	t.Helper()
	if !bytes.HasSuffix(text, []byte("# EOF\n")) {
		t.Fatalf("does not end with # EOF")
	}
	if race.Enabled {
		p := expfmt.NewTextParser(model.LegacyValidation)
		fams, err := p.TextToMetricFamilies(bytes.NewReader(text))
		if err != nil {
			t.Fatalf("Prometheus text parser: %v", err)
		}
		return fams
	}
	dec := expfmt.NewDecoder(bytes.NewReader(text), expfmt.NewFormat(expfmt.TypeOpenMetrics))
	fams := map[string]*dto.MetricFamily{}
	for {
		var f dto.MetricFamily
		err := dec.Decode(&f)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("OpenMetrics parser: %v", err)
		}
		if fams[f.GetName()] != nil {
			t.Fatalf("family %s twice", f.GetName())
		}
		fams[f.GetName()] = &f
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	if _, err := p.TextToMetricFamilies(bytes.NewReader(text)); err != nil {
		t.Fatalf("Prometheus text parser: %v", err)
	}
	return fams
}

func labelsOf(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, l := range m.Label {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

// Every exact metric of every run is a sample with its value (in base
// units), its object and exactness; an unavailable one has no sample but a
// writeamp_metric_unavailable with the reason.
func TestOpenMetricsParsesAndHoldsEveryExactMetric(t *testing.T) {
	t.Parallel()
	r := fixture(t)
	// An unavailable metric, as a server that does not count it gives it.
	r.Runs[0].Database["undo_bytes"] = result.NA("innodb_metrics", "counter disabled")
	var buf bytes.Buffer
	if err := Render(&buf, "openmetrics", r, Options{}); err != nil {
		t.Fatal(err)
	}
	fams := parseOpenMetrics(t, buf.Bytes())
	for _, f := range fams {
		if f.GetType() != dto.MetricType_GAUGE {
			t.Errorf("%s: type %v, want gauge", f.GetName(), f.GetType())
		}
		if u := f.GetUnit(); u != "" && !strings.HasSuffix(f.GetName(), "_"+u) {
			t.Errorf("%s: unit %s not in the name", f.GetName(), u)
		}
		if suf := reservedSuffix(f.GetName()); suf != "" {
			t.Errorf("%s: a gauge named with %s, which OpenMetrics reserves for counters, histograms and summaries", f.GetName(), suf)
		}
	}
	find := func(name string, want map[string]string) (float64, bool) {
		f := fams[name]
		if f == nil {
			return 0, false
		}
	next:
		for _, m := range f.Metric {
			got := labelsOf(m)
			for k, v := range want {
				if got[k] != v {
					continue next
				}
			}
			return m.GetGauge().GetValue(), true
		}
		return 0, false
	}
	n := 0
	for _, run := range r.Runs {
		check := func(obj map[string]string, metrics map[string]result.Metric) {
			for name, m := range metrics {
				if m.Exactness != result.Exact || !m.OK() {
					continue
				}
				fam, _, scale, extra := omName(name)
				want := map[string]string{"variant": run.Variant, "dialect": r.Server.Dialect, "exactness": "exact", "source": m.Source}
				for k, v := range obj {
					want[k] = v
				}
				for _, l := range extra {
					want[l.GetName()] = l.GetValue()
				}
				v, ok := find(fam, want)
				if !ok || v != m.V()*scale {
					t.Errorf("%s %v: sample %v (found %v), want %v", fam, want, v, ok, m.V()*scale)
				}
				n++
			}
		}
		check(map[string]string{"table": "", "index": ""}, run.Database)
		for _, tb := range run.Tables {
			check(map[string]string{"table": tb.Name, "index": ""}, tb.Metrics)
		}
		for _, ix := range run.Indexes {
			check(map[string]string{"table": ix.Table, "index": ix.Name}, ix.Metrics)
		}
	}
	if n < 50 {
		t.Fatalf("only %d exact metrics checked", n)
	}
	if _, ok := find("writeamp_undo_bytes", map[string]string{"variant": r.Runs[0].Variant}); ok {
		t.Errorf("an unavailable metric has a sample (a false zero)")
	}
	if v, ok := find("writeamp_metric_unavailable", map[string]string{"variant": r.Runs[0].Variant, "metric": "undo_bytes", "reason": "counter disabled"}); !ok || v != 1 {
		t.Errorf("writeamp_metric_unavailable lacks undo_bytes: %v %v", v, ok)
	}
	if v, ok := find("writeamp_leaf_inserts", map[string]string{"index": "constraint_offl_cl_ses_pk3"}); !ok || v <= 0 {
		t.Errorf("no leaf_inserts sample of the primary key: %v %v", v, ok)
	}
}

// reservedSuffix is the suffix promtool check metrics (and the OpenMetrics
// spec) rejects on a gauge's name, "" when there is none.
func reservedSuffix(name string) string {
	for _, suf := range []string{"_count", "_sum", "_bucket", "_total", "_created"} {
		if strings.HasSuffix(name, suf) {
			return suf
		}
	}
	return ""
}

// TestOpenMetricsNoReservedSuffix: no metric of the catalogue becomes a
// family whose name ends as a counter's, histogram's or summary's samples
// do, and every one of them still parses as a gauge; the JSON keeps the
// catalogue's names.
func TestOpenMetricsNoReservedSuffix(t *testing.T) {
	t.Parallel()
	v := 7.0
	run := result.Run{Variant: "v", Database: map[string]result.Metric{}}
	for _, m := range result.Metrics() {
		fam, _, _, _ := omName(m.Name)
		if suf := reservedSuffix(fam); suf != "" {
			t.Errorf("%s: family %s ends with %s", m.Name, fam, suf)
		}
		run.Database[m.Name] = result.Metric{Value: &v, Exactness: result.Exact, Source: "s"}
	}
	var buf bytes.Buffer
	if err := OpenMetrics(&buf, &result.Result{Runs: []result.Run{run}}); err != nil {
		t.Fatal(err)
	}
	// The Prometheus text parser only: the OpenMetrics grammar parser
	// takes seconds per hundred lines under -race, and the full parse of a
	// whole report is TestOpenMetricsParsesAndHoldsEveryExactMetric's.
	parser := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(bytes.TrimSuffix(buf.Bytes(), []byte("# EOF\n"))))
	if err != nil {
		t.Fatalf("Prometheus text parser: %v", err)
	}
	for name, f := range fams {
		if f.GetType() != dto.MetricType_GAUGE {
			t.Errorf("%s: type %v, want gauge", name, f.GetType())
		}
	}
	if fams["writeamp_fpi_records"] == nil || fams["writeamp_fpi_count"] != nil {
		t.Errorf("fpi_count is not writeamp_fpi_records among %d families", len(fams))
	}
	if _, ok := run.Database["fpi_count"]; !ok {
		t.Error("the JSON name fpi_count is gone")
	}
}

func TestOpenMetricsNames(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"fpi_count": "writeamp_fpi_records ", "vacuum_fpi_count": "writeamp_vacuum_fpi_records ",
		"log_bytes": "writeamp_log_bytes bytes", "hot_ratio": "writeamp_hot_ratio ratio", "page_latch_wait_ms": "writeamp_page_latch_wait_seconds seconds",
		"leaf_inserts": "writeamp_leaf_inserts ", "waits.lock/tuple_ms": "writeamp_wait_seconds seconds", "waits.lock/tuple": "writeamp_waits ",
		"wait_share.Lock.transactionid": "writeamp_wait_share_ratio ratio", "op_wait_share.refresh.CPU.running": "writeamp_op_wait_share_ratio ratio",
	} {
		fam, unit, _, _ := omName(name)
		if fam+" "+unit != want {
			t.Errorf("%s: %s %s, want %s", name, fam, unit, want)
		}
	}
}
