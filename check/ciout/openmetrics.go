package ciout

import (
	"io"

	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/proto"

	"github.com/writeamp/writeamp/budget"
	"github.com/writeamp/writeamp/check"
	"github.com/writeamp/writeamp/reports"
)

// Families are the check's metric families: the before and after runs'
// metrics (reports.Families, variant="before"/"after") and one
// writeamp_budget_verdict sample per verdict, 1 for its status, so a
// dashboard can count failures over time.
func Families(o *check.Outcome) []*dto.MetricFamily {
	var fams []*dto.MetricFamily
	dialect := o.Dialect
	if o.Result != nil {
		fams = reports.Families(o.Result)
		dialect = o.Result.Server.Dialect
	}
	l := func(n, v string) *dto.LabelPair { return &dto.LabelPair{Name: proto.String(n), Value: proto.String(v)} }
	verdicts := &dto.MetricFamily{Name: proto.String("writeamp_budget_verdict"), Type: dto.MetricType_GAUGE.Enum(),
		Help: proto.String("a check's budget verdict on one object: 1 with its status (pass, fail, unknown, inside-spread)")}
	compared := &dto.MetricFamily{Name: proto.String("writeamp_budget_compared"), Type: dto.MetricType_GAUGE.Enum(),
		Help: proto.String("the number a budget held against its threshold (its unit label: %, bytes, ratio ...)")}
	for _, v := range o.Verdicts {
		ls := []*dto.LabelPair{l("dialect", dialect), l("budget", v.Budget), l("level", v.Level), l("object", v.Object)}
		verdicts.Metric = append(verdicts.Metric, &dto.Metric{Label: append(ls, l("status", string(v.Status))), Gauge: &dto.Gauge{Value: proto.Float64(1)}})
		if v.Compared != nil && v.Status != budget.Unknown {
			compared.Metric = append(compared.Metric, &dto.Metric{Label: append(ls, l("unit", v.Unit), l("exactness", string(v.Exactness))), Gauge: &dto.Gauge{Value: proto.Float64(*v.Compared)}})
		}
	}
	for _, f := range []*dto.MetricFamily{verdicts, compared} {
		if len(f.Metric) > 0 {
			fams = append(fams, f)
		}
	}
	return fams
}

func openMetrics(w io.Writer, o *check.Outcome) error {
	return reports.WriteOpenMetrics(w, Families(o))
}
