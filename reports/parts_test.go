package reports

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/writeamp/writeamp/result"
)

// partitioned adds a partitioned table ev (200 rows updated) and its two
// partitions to the fixture's first run, as the collectors list them.
func partitioned(t *testing.T) *result.Result {
	t.Helper()
	r := fixture(t)
	r.Runs = r.Runs[:1]
	mk := func(name, partOf string, v float64) result.Object {
		o := result.Object{Schema: "public", Name: name, Info: map[string]string{}, Metrics: map[string]result.Metric{
			"rows_updated": result.New(v, result.Exact, "pg_stat_user_tables"),
		}}
		if partOf != "" {
			o.Info["part_of"] = partOf
		} else {
			o.Info["partitioned"] = "true"
		}
		return o
	}
	r.Runs[0].Tables = append(r.Runs[0].Tables, mk("ev", "", 200), mk("ev_0", "public.ev", 113), mk("ev_1", "public.ev", 87))
	return r
}

// A partition's rows name its whole in part_of, so a sum over the rows
// whose part_of is empty counts each row changed once.
func TestCSVNamesTheWholeOfEachPart(t *testing.T) {
	t.Parallel()
	r := partitioned(t)
	var buf bytes.Buffer
	if err := Render(&buf, "csv", r, Options{}); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	sum, all := 0.0, 0.0
	for _, rec := range recs[1:] {
		if rec[col["level"]] != "table" || rec[col["metric"]] != "rows_updated" {
			continue
		}
		v := 0.0
		if _, err := fmt.Sscan(rec[col["value"]], &v); err != nil {
			t.Fatal(err)
		}
		all += v
		switch obj, part := rec[col["object"]], rec[col["part_of"]]; obj {
		case "ev_0", "ev_1":
			if part != "public.ev" {
				t.Errorf("%s: part_of %q, want public.ev", obj, part)
			}
		case "ev":
			if part != "" {
				t.Errorf("ev: part_of %q", part)
			}
		}
		if rec[col["part_of"]] == "" {
			sum += v
		}
	}
	if all-sum != 200 {
		t.Errorf("rows updated over all tables %v, over wholes %v: want the partitions' 200 counted once", all, sum)
	}
}

// In OpenMetrics, part_of="" selects the wholes: sum(...{part_of=""}).
func TestOpenMetricsLabelsEachPartWithItsWhole(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := Render(&buf, "openmetrics", partitioned(t), Options{}); err != nil {
		t.Fatal(err)
	}
	// The text parser reads the labels; TestOpenMetricsParsesAndHoldsEveryExactMetric
	// holds the same output to the OpenMetrics grammar (slow under -race).
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, f := range fams {
		for _, m := range f.Metric {
			ls := labelsOf(m)
			if tb := ls["table"]; (tb == "ev" || tb == "ev_0" || tb == "ev_1") && ls["index"] == "" {
				seen[tb] = ls["part_of"]
			}
		}
	}
	if len(seen) != 3 || seen["ev"] != "" || seen["ev_0"] != "public.ev" || seen["ev_1"] != "public.ev" {
		t.Errorf("part_of by table: %v", seen)
	}
}
