package result

import "testing"

// A run's sums count each partition once (through its partitioned table),
// and a table's indexes are its own, its TOAST index and its partitions'
// indexes that no partitioned index of it already counts.
func TestPartsCounted(t *testing.T) {
	t.Parallel()
	mk := func(name, table, partOf string, v float64) Object {
		o := Object{Name: name, Schema: "s", Table: table, Metrics: map[string]Metric{}}
		if partOf != "" {
			o.Info = map[string]string{"part_of": partOf}
		}
		if table == "" {
			o.Metrics["rows_updated"] = New(v, Exact, "x")
		}
		return o
	}
	r := &Run{
		Tables: []Object{mk("ev", "", "", 200), mk("ev_0", "", "s.ev", 120), mk("ev_1", "", "s.ev", 80), mk("t", "", "", 5), mk("t (TOAST)", "", "s.t", 0)},
		Indexes: []Object{mk("ev_k", "ev", "", 0), mk("ev_0_k", "ev_0", "s.ev_k", 0), mk("ev_1_k", "ev_1", "s.ev_k", 0),
			mk("ev_0 (TOAST index)", "ev_0", "", 0), mk("t_pkey", "t", "", 0), mk("t (TOAST index)", "t", "", 0)},
	}
	if s := r.TableRows(); s.N != 205 {
		t.Errorf("rows %v, want 205 (the partitions through ev)", s.N)
	}
	names := func(objs []Object) map[string]bool {
		m := map[string]bool{}
		for _, o := range objs {
			m[o.Name] = true
		}
		return m
	}
	if got := names(r.TableIndexes("s.ev")); len(got) != 2 || !got["ev_k"] || !got["ev_0 (TOAST index)"] {
		t.Errorf("ev's indexes %v", got)
	}
	if got := names(r.TableIndexes("ev_1")); len(got) != 1 || !got["ev_1_k"] {
		t.Errorf("ev_1's indexes %v", got)
	}
	if got := names(r.TableIndexes("t")); len(got) != 2 || !got["t (TOAST index)"] {
		t.Errorf("t's indexes %v", got)
	}
}
