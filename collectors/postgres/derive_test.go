package postgres

import (
	"strings"
	"testing"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/result"
)

func delta(vals map[string]float64, objs ...collectors.Object) *collectors.Delta {
	d := &collectors.Delta{Values: map[collectors.Key]result.Metric{}, Objects: objs}
	for k, v := range vals {
		parts := strings.SplitN(k, ":", 3)
		d.Values[collectors.Key{Level: collectors.Level(parts[0]), Object: parts[1], Metric: parts[2]}] = result.New(v, result.Exact, "src")
	}
	return d
}

func TestDeriveTablesAllHOTIsAZeroNotAGap(t *testing.T) {
	d := delta(map[string]float64{"table:s.t:rows_updated": 100, "table:s.t:hot_updates": 100, "table:s.t:newpage_updates": 0},
		collectors.Object{Level: collectors.Table, Schema: "s", Name: "t"})
	DeriveTables(d)
	if m := d.Get(key(collectors.Table, "s.t", "non_hot_updates")); !m.OK() || m.V() != 0 || m.Exactness != result.Derived {
		t.Errorf("non_hot_updates %+v", m)
	}
	if m := d.Get(key(collectors.Table, "s.t", "hot_ratio")); m.V() != 1 {
		t.Errorf("hot_ratio %+v", m)
	}
	if len(d.Warnings) != 0 {
		t.Errorf("no warning when every update was HOT: %v", d.Warnings)
	}
}

func TestDeriveTablesExplainsPageMoves(t *testing.T) {
	d := delta(map[string]float64{"table:s.t:rows_updated": 100, "table:s.t:hot_updates": 90, "table:s.t:newpage_updates": 10, "table:s.t:autovacuum_runs": 1},
		collectors.Object{Level: collectors.Table, Schema: "s", Name: "t"})
	DeriveTables(d)
	w := strings.Join(d.Warnings, "\n")
	if !strings.Contains(w, "10 of its 10 non-HOT updates moved the row to another page") || !strings.Contains(w, "fillfactor") {
		t.Errorf("warnings %q", w)
	}
	if !strings.Contains(w, "autovacuum ran 1 time") {
		t.Errorf("background work in the window must be reported: %q", w)
	}
}

func TestDeriveLeafInsertsLabelsAndRefuses(t *testing.T) {
	objs := []collectors.Object{
		{Level: collectors.Table, Schema: "s", Name: "t"},
		{Level: collectors.Index, Schema: "s", Name: "plain", Table: "t", Info: map[string]string{"method": "btree"}},
		{Level: collectors.Index, Schema: "s", Name: "partial", Table: "t", Info: map[string]string{"method": "btree", "partial": "true"}},
		{Level: collectors.Index, Schema: "s", Name: "gin", Table: "t", Info: map[string]string{"method": "gin"}},
	}
	d := delta(map[string]float64{"table:s.t:rows_inserted": 10, "table:s.t:rows_updated": 100, "table:s.t:hot_updates": 60}, objs...)
	DeriveLeafInserts(d)
	if m := d.Get(key(collectors.Index, "s.plain", "leaf_inserts")); m.V() != 50 || m.Exactness != result.Derived || !strings.Contains(m.Source, "n_tup_hot_upd") {
		t.Errorf("plain %+v", m)
	}
	for _, n := range []string{"s.partial", "s.gin"} {
		if m := d.Get(key(collectors.Index, n, "leaf_inserts")); m.OK() || m.Note == "" {
			t.Errorf("%s must be unavailable with a reason: %+v", n, m)
		}
	}
	// An exact WAL figure stays; a disagreeing table rule becomes a note.
	d = delta(map[string]float64{"table:s.t:rows_inserted": 10, "table:s.t:rows_updated": 100, "table:s.t:hot_updates": 60, "index:s.plain:leaf_inserts": 52}, objs...)
	DeriveLeafInserts(d)
	if m := d.Get(key(collectors.Index, "s.plain", "leaf_inserts")); m.V() != 52 || m.Exactness != result.Exact || !strings.Contains(m.Note, "50") {
		t.Errorf("exact %+v", m)
	}
}
