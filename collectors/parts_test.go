package collectors

import (
	"testing"

	"github.com/writeamp/writeamp/result"
)

// A partitioned table's and index's figures become their partitions' sums
// (its own zero counters replaced), with the weakest exactness; a part
// without a figure leaves the whole without one; ratios are not summed; a
// table's figures add its TOAST table's to its own.
func TestDeriveParts(t *testing.T) {
	t.Parallel()
	m := func(v float64, e result.Exactness) result.Metric { return result.New(v, e, "src") }
	d := &Delta{Objects: []Object{
		{Level: Table, Schema: "s", Name: "ev", Info: map[string]string{InfoPartitioned: "true"}},
		{Level: Table, Schema: "s", Name: "ev_0", Info: map[string]string{InfoPartOf: "s.ev"}},
		{Level: Table, Schema: "s", Name: "ev_1", Info: map[string]string{InfoPartOf: "s.ev"}},
		{Level: Index, Schema: "s", Name: "ev_k", Table: "ev", Info: map[string]string{InfoPartitioned: "true"}},
		{Level: Index, Schema: "s", Name: "ev_0_k", Table: "ev_0", Info: map[string]string{InfoPartOf: "s.ev_k"}},
		{Level: Index, Schema: "s", Name: "ev_1_k", Table: "ev_1", Info: map[string]string{InfoPartOf: "s.ev_k"}},
		{Level: Table, Schema: "s", Name: "t"},
		{Level: Table, Schema: "s", Name: "t (TOAST)", Info: map[string]string{InfoPartOf: "s.t", "toast": "table"}},
	}, Values: map[Key]result.Metric{}}
	put := func(l Level, obj string, mi *result.Info, v result.Metric) { d.Values[NewKey(l, obj, mi)] = v }
	put(Table, "s.ev", result.RowsUpdated, m(0, result.Exact))
	put(Table, "s.ev_0", result.RowsUpdated, m(113, result.Exact))
	put(Table, "s.ev_1", result.RowsUpdated, m(87, result.Exact))
	put(Table, "s.ev_0", result.LogBytes, m(1000, result.Exact))
	put(Table, "s.ev_1", result.LogBytes, m(500, result.Approx))
	put(Table, "s.ev_0", result.HotRatio, m(0.5, result.Derived))
	put(Table, "s.ev_1", result.HotRatio, m(0.5, result.Derived))
	put(Index, "s.ev_0_k", result.LeafInserts, m(113, result.Exact))
	put(Index, "s.ev_1_k", result.LeafInserts, result.NA("src", "gone"))
	put(Table, "s.t", result.LogBytes, m(100, result.Exact))
	put(Table, "s.t (TOAST)", result.LogBytes, m(9000, result.Exact))
	put(Table, "s.t", result.RowsUpdated, m(300, result.Exact))
	DeriveParts(d)
	get := func(l Level, obj string, mi *result.Info) result.Metric { return d.Get(NewKey(l, obj, mi)) }
	if g := get(Table, "s.ev", result.RowsUpdated); !g.OK() || g.V() != 200 || g.Exactness != result.Exact {
		t.Errorf("parent rows %+v", g)
	}
	if g := get(Table, "s.ev", result.LogBytes); g.V() != 1500 || g.Exactness != result.Approx {
		t.Errorf("parent log bytes %+v: the weakest part's exactness", g)
	}
	if d.Has(NewKey(Table, "s.ev", result.HotRatio)) {
		t.Errorf("a ratio summed")
	}
	if g := get(Index, "s.ev_k", result.LeafInserts); g.OK() || g.Exactness != result.Unavailable {
		t.Errorf("parent index with a part unavailable %+v", g)
	}
	if g := get(Table, "s.t", result.LogBytes); g.V() != 9100 || g.Exactness != result.Exact {
		t.Errorf("table with its TOAST %+v", g)
	}
	if g := get(Table, "s.t", result.RowsUpdated); g.V() != 300 {
		t.Errorf("table rows %+v", g)
	}
}
