package budget

import (
	"math"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/result"
)

func TestParseValid(t *testing.T) {
	cases := []struct {
		in   string
		want Budget
	}{
		{"log_bytes/op<=+5%", Budget{Metric: "log_bytes", PerOp: true, Cmp: "<=", Kind: Relative, Value: 5}},
		{"hot_ratio>=0.9", Budget{Metric: "hot_ratio", Cmp: ">=", Kind: Absolute, Value: 0.9}},
		{"hot_ratio >= 90%", Budget{Metric: "hot_ratio", Cmp: ">=", Kind: Absolute, Value: 0.9}},
		{"leaf_inserts/op[idx_name]<=+0%", Budget{Metric: "leaf_inserts", PerOp: true, Object: "idx_name", Cmp: "<=", Kind: Relative, Value: 0}},
		{"hot_ratio[jobs]>=-0.05", Budget{Metric: "hot_ratio", Object: "jobs", Cmp: ">=", Kind: Delta, Value: -0.05}},
		{"log_bytes/op<=2KiB", Budget{Metric: "log_bytes", PerOp: true, Cmp: "<=", Kind: Absolute, Value: 2048}},
		{"log_bytes<+1MB", Budget{Metric: "log_bytes", Cmp: "<", Kind: Delta, Value: 1e6}},
		{"rows_updated[public.jobs]>1000", Budget{Metric: "rows_updated", Object: "public.jobs", Cmp: ">", Kind: Absolute, Value: 1000}},
		{"fpi_bytes<=-10%", Budget{Metric: "fpi_bytes", Cmp: "<=", Kind: Relative, Value: -10}},
		// byte units are humanize's: fractions of a byte kept (per operation),
		// TB/TiB and beyond too
		{"log_bytes/op<=100.5B", Budget{Metric: "log_bytes", PerOp: true, Cmp: "<=", Kind: Absolute, Value: 100.5}},
		{"log_bytes<=1TiB", Budget{Metric: "log_bytes", Cmp: "<=", Kind: Absolute, Value: 1 << 40}},
		{"log_bytes_in_scope/op <= 1.5 kib", Budget{Metric: "log_bytes_in_scope", PerOp: true, Cmp: "<=", Kind: Absolute, Value: 1536}},
		{"size_bytes[t]<=+8KB", Budget{Metric: "size_bytes", Object: "t", Cmp: "<=", Kind: Delta, Value: 8000}},
		{"waits.writelog_ms/op<=+10%", Budget{Metric: "waits.writelog_ms", PerOp: true, Cmp: "<=", Kind: Relative, Value: 10}},
		// a name the catalogue does not know parses; CheckMetrics refuses it
		{"hot_ratoi>=90%", Budget{Metric: "hot_ratoi", Cmp: ">=", Kind: Absolute, Value: 0.9}},
	}
	for _, c := range cases {
		got, err := Parse(c.in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.in, err)
		}
		got.Text = ""
		if got != c.want {
			t.Errorf("Parse(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

func TestParseInvalid(t *testing.T) {
	cases := map[string]string{
		"":                      "metric name",
		"Log_bytes<=+5%":        "metric name",
		"log_bytes":             "missing comparison",
		"log_bytes<=":           "missing threshold",
		"log_bytes==5":          "expected <=",
		"log_bytes/row<=5":      "only /op",
		"leaf_inserts[idx<=+0%": "missing ]",
		"leaf_inserts[]<=+0%":   "one table or index",
		"log_bytes<=5%":         "only fits a ratio",
		"hot_ratio>=0.9KiB":     "only fits a metric counted in bytes",
		"log_bytes<=5 parsecs":  "unknown byte unit",
		"log_bytes<=2k":         "unknown byte unit", // humanize reads k as kB: a reader may not
		"log_bytes<=2Mi":        "unknown byte unit",
		"log_bytes<=1,000KiB":   "unknown byte unit",
		"waits.<=0":             "expected <=",
		"log_bytes<=1e300EiB":   "unknown byte unit",
		"log_bytes<=abc":        "must be a number",
		"log_bytes<=1.2.3":      "cannot read",
		"log_bytes<=+%":         "must be a number",
	}
	for in, want := range cases {
		_, err := Parse(in)
		if err == nil {
			t.Errorf("Parse(%q): no error", in)
			continue
		}
		if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "grammar:") {
			t.Errorf("Parse(%q) = %v, want it to say %q and show the grammar", in, err, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range append(Examples, "hot_ratio >= 90%", "log_bytes<+1MB", "", "x", "a<=", "a[b]>=-", "log_bytes<=5%", "hot_ratio>=0.9KiB",
		"leaf_inserts[idx<=+0%", "log_bytes<=1e9", "log_bytes<=+.5%", "a/op[b]<1.", "waits.x_ms<=2", "log_bytes<=9EiB", "a.b.c<1") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := Parse(s)
		if err != nil {
			if !strings.Contains(err.Error(), "grammar:") {
				t.Fatalf("error without the grammar: %v", err)
			}
			return
		}
		if math.IsNaN(b.Value) || math.IsInf(b.Value, 0) {
			t.Fatalf("non-finite threshold from %q", s)
		}
		again, err := Parse(b.String())
		if err != nil {
			t.Fatalf("canonical form %q of %q does not parse: %v", b.String(), s, err)
		}
		b.Text, again.Text = "", ""
		if again != b {
			t.Fatalf("round trip %q -> %q: %+v != %+v", s, b.String(), again, b)
		}
	})
}

func m(v float64) result.Metric { return result.New(v, result.Exact, "test") }

func runs() (*result.Run, *result.Run) {
	before := &result.Run{Variant: "before", MainOperation: "refreshes", Operations: map[string]int64{"refreshes": 1000},
		Database: map[string]result.Metric{"log_bytes": m(1_000_000)},
		Tables:   []result.Object{{Name: "jobs", Metrics: map[string]result.Metric{"rows_updated": m(2000), "hot_updates": m(1990), "hot_ratio": m(0.995)}}},
		Indexes:  []result.Object{{Name: "jobs_pkey", Table: "jobs", Metrics: map[string]result.Metric{"leaf_inserts": m(10)}}},
	}
	after := &result.Run{Variant: "after", MainOperation: "refreshes", Operations: map[string]int64{"refreshes": 1000},
		Database: map[string]result.Metric{"log_bytes": m(1_040_000)},
		Tables:   []result.Object{{Name: "jobs", Metrics: map[string]result.Metric{"rows_updated": m(2000), "hot_updates": m(0), "hot_ratio": m(0)}}},
		Indexes: []result.Object{
			{Name: "jobs_pkey", Table: "jobs", Metrics: map[string]result.Metric{"leaf_inserts": m(2000)}},
			{Name: "jobs_touched", Table: "jobs", Info: map[string]string{"definition": "CREATE INDEX jobs_touched ON public.jobs USING btree (touched_at)"}, Metrics: map[string]result.Metric{"leaf_inserts": m(2000)}},
		},
	}
	return before, after
}

func eval(t *testing.T, s string) []Verdict {
	t.Helper()
	b, err := Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	before, after := runs()
	return Evaluate(b, before, after)
}

func TestEvaluate(t *testing.T) {
	v := eval(t, "log_bytes/op<=+5%")
	if len(v) != 1 || v[0].Status != Pass || v[0].Level != "database" || math.Abs(*v[0].Compared-4) > 1e-9 {
		t.Fatalf("log_bytes/op<=+5%%: %+v", v)
	}
	if *v[0].Before != 1000 || *v[0].After != 1040 {
		t.Fatalf("per-op values: %v %v", *v[0].Before, *v[0].After)
	}
	v = eval(t, "log_bytes/op<=+3%")
	if v[0].Status != Fail {
		t.Fatalf("+4%% passed a +3%% budget: %+v", v[0])
	}
	v = eval(t, "hot_ratio>=0.9")
	if len(v) != 1 || v[0].Status != Fail || v[0].Object != "jobs" || *v[0].Compared != 0 {
		t.Fatalf("hot_ratio: %+v", v)
	}
	if len(v[0].Hints) != 1 || !strings.Contains(v[0].Hints[0], "jobs_touched") || !strings.Contains(v[0].Hints[0], "touched_at") {
		t.Fatalf("hint does not name the new index and its column: %v", v[0].Hints)
	}
	// An index the migration added has no before to hold a relative
	// change against: reported as new, with its after value, never +Inf.
	v = eval(t, "leaf_inserts/op[jobs_touched]<=+0%")
	if v[0].Status != New || v[0].Compared != nil || v[0].Before != nil || *v[0].After != 2 || !strings.Contains(v[0].Message, "index_entries/op[jobs]") {
		t.Fatalf("new index: %+v", v[0])
	}
	v = eval(t, "leaf_inserts<=2000")
	if len(v) != 2 || v[0].Status != Pass || v[1].Status != Pass {
		t.Fatalf("every index: %+v", v)
	}
	v = eval(t, "hot_ratio[jobs]>=-0.05")
	if v[0].Status != Fail || math.Abs(*v[0].Compared+0.995) > 1e-9 {
		t.Fatalf("delta: %+v", v[0])
	}
	v = eval(t, "leaf_inserts[nope]<=+0%")
	if v[0].Status != Unknown || !strings.Contains(v[0].Message, "nope") {
		t.Fatalf("unknown object: %+v", v[0])
	}
	v = eval(t, "page_splits<=+0%")
	if v[0].Status != Unknown {
		t.Fatalf("unknown metric: %+v", v[0])
	}
	p, f, u := Summary(append(eval(t, "log_bytes/op<=+5%"), append(eval(t, "hot_ratio>=0.9"), eval(t, "page_splits<=0")...)...))
	if p != 1 || f != 1 || u != 1 {
		t.Fatalf("summary %d/%d/%d", p, f, u)
	}
}

func TestEvaluateUnavailable(t *testing.T) {
	before, after := runs()
	after.Database["log_bytes"] = result.NA("wal", "standby")
	b, _ := Parse("log_bytes<=+5%")
	v := Evaluate(b, before, after)
	if v[0].Status != Unknown || !strings.Contains(v[0].Message, "standby") {
		t.Fatalf("%+v", v[0])
	}
}

// Verdicts write bytes as every report does: binary units with the exact
// count (README, "Units").
func TestVerdictUnits(t *testing.T) {
	for s, want := range map[string]string{
		"log_bytes<=1MiB":      "0.99 MiB (1,040,000 B) <= 1.00 MiB (1,048,576 B): PASS",
		"log_bytes/op<=+30B":   "+40 B <= +30 B: FAIL",
		"log_bytes/op<=1000B":  "1.02 KiB (1,040 B) <= 1,000 B: FAIL",
		"hot_ratio[jobs]>=0.9": "0.0% >= 90.0%: FAIL",
		"leaf_inserts/op<=2.5": "2.000 <= 2.500: PASS",
	} {
		if v := eval(t, s); v[len(v)-1].Message != want {
			t.Errorf("%s: %q, want %q", s, v[len(v)-1].Message, want)
		}
	}
}
