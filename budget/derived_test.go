package budget

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/result"
)

// index_entries holds a table whatever indexes it gains: the new index's
// inserts count in the table's total, and an index the migration replaced
// leaves it.
func TestIndexEntriesSumsTheTablesIndexes(t *testing.T) {
	v := eval(t, "index_entries/op[jobs]<=+0%")
	if len(v) != 1 || v[0].Level != "table" || v[0].Object != "jobs" {
		t.Fatalf("%+v", v)
	}
	// before: jobs_pkey 10 / 1000 ops; after: 2000 + 2000 / 1000 ops
	if *v[0].Before != 0.01 || *v[0].After != 4 || v[0].Status != Fail || v[0].Exactness != result.Exact {
		t.Fatalf("%+v", v[0])
	}
	if len(v[0].Hints) == 0 || !strings.Contains(v[0].Hints[0], "jobs_touched") {
		t.Errorf("the failure should name the index the migration added: %v", v[0].Hints)
	}
	// without an object: every table with an index
	if v := eval(t, "index_entries<=4000"); len(v) != 1 || v[0].Object != "jobs" || v[0].Status != Pass || *v[0].After != 4000 {
		t.Fatalf("%+v", v)
	}
	// an index replaced by a narrower one: fewer entries in total passes
	before, after := runs()
	after.Indexes = []result.Object{{Name: "jobs_pkey", Table: "public.jobs", Metrics: map[string]result.Metric{"leaf_inserts": m(5)}},
		{Name: "jobs_new", Table: "jobs", Metrics: map[string]result.Metric{"leaf_inserts": result.New(3, result.Derived, "x")}}}
	b, _ := Parse("index_entries[jobs]<=+0%")
	v = Evaluate(b, before, after)
	if v[0].Status != Pass || *v[0].After != 8 || v[0].Exactness != result.Derived {
		t.Fatalf("%+v", v[0])
	}
	// an index whose inserts were not measured makes the total unknown, not smaller
	after.Indexes[1].Metrics["leaf_inserts"] = result.NA("", "no WAL access")
	if v = Evaluate(b, before, after); v[0].Status != Unknown || !strings.Contains(v[0].Message, "no WAL access") {
		t.Fatalf("%+v", v[0])
	}
	if v := eval(t, "index_entries[nope]<=+0%"); v[0].Status != Unknown || !strings.Contains(v[0].Message, "nope") {
		t.Fatalf("%+v", v[0])
	}
}

// A count that was 0 before and grew is judged (it failed +0%) without an
// infinity anywhere, and every verdict encodes as JSON.
func TestGrowthFromZeroHasNoInfinity(t *testing.T) {
	before, after := runs()
	before.Indexes = append(before.Indexes, result.Object{Name: "jobs_touched", Table: "jobs", Metrics: map[string]result.Metric{"leaf_inserts": m(0)}})
	var all []Verdict
	for _, s := range []string{"leaf_inserts[jobs_touched]<=+0%", "leaf_inserts[jobs_touched]>=+50%", "leaf_inserts<=+10%", "hot_ratio>=-10%", "index_entries/op<=+0%"} {
		b, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, Evaluate(b, before, after)...)
	}
	if all[0].Status != Fail || all[0].Compared != nil || !strings.Contains(all[0].Message, "from 0 to") {
		t.Fatalf("%+v", all[0])
	}
	if all[1].Status != Pass {
		t.Fatalf("%+v", all[1])
	}
	for _, v := range all {
		if v.Compared != nil && (math.IsInf(*v.Compared, 0) || math.IsNaN(*v.Compared)) {
			t.Errorf("%s: compared %v", v.Budget, *v.Compared)
		}
	}
	if _, err := json.Marshal(all); err != nil {
		t.Fatal(err)
	}
	// even a verdict someone filled with non-finite numbers encodes
	inf, nan := math.Inf(1), math.NaN()
	bad := Verdict{Budget: "x", Before: &nan, After: &inf, Compared: &inf, BeforeRange: &[2]float64{nan, 1}}
	out, err := json.Marshal(bad)
	if err != nil || strings.Contains(string(out), "Inf") || strings.Contains(string(out), "NaN") || strings.Contains(string(out), `"before"`) {
		t.Fatalf("%s %v", out, err)
	}
}
