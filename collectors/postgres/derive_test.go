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
	t.Parallel()
	d := delta(map[string]float64{"table:s.t:rows_updated": 100, "table:s.t:hot_updates": 100, "table:s.t:newpage_updates": 0},
		collectors.Object{Level: collectors.Table, Schema: "s", Name: "t"})
	DeriveTables(d)
	if m := d.Get(collectors.NewKey(collectors.Table, "s.t", result.NonHotUpdates)); !m.OK() || m.V() != 0 || m.Exactness != result.Derived {
		t.Errorf("non_hot_updates %+v", m)
	}
	if m := d.Get(collectors.NewKey(collectors.Table, "s.t", result.HotRatio)); m.V() != 1 {
		t.Errorf("hot_ratio %+v", m)
	}
	if len(d.Warnings) != 0 {
		t.Errorf("no warning when every update was HOT: %v", d.Warnings)
	}
}

func TestDeriveTablesExplainsPageMoves(t *testing.T) {
	t.Parallel()
	d := delta(map[string]float64{"table:s.t:rows_updated": 100, "table:s.t:hot_updates": 90, "table:s.t:newpage_updates": 10, "table:s.t:autovacuum_runs": 1},
		collectors.Object{Level: collectors.Table, Schema: "s", Name: "t"})
	DeriveTables(d)
	w := strings.Join(d.WarningTexts(), "\n")
	if !strings.Contains(w, "10 of its 10 non-HOT updates moved the row to another page") || !strings.Contains(w, "fillfactor") {
		t.Errorf("warnings %q", w)
	}
	if !strings.Contains(w, "autovacuum ran 1 time") {
		t.Errorf("background work in the window must be reported: %q", w)
	}
	// What the vacuum window drops as its own work, it finds by kind.
	kinds := map[collectors.WarningKind]collectors.Warning{}
	for _, x := range d.Warnings {
		kinds[x.Kind] = x
	}
	if m := kinds[collectors.WarnMaintenance]; m.Object != "s.t" || m.Cause != result.AutovacuumRuns.Name {
		t.Errorf("the maintenance warning is %+v", m)
	}
	if n := kinds[collectors.WarnNotHOT]; n.Object != "s.t" {
		t.Errorf("the not-HOT warning is %+v", n)
	}
}

func TestDeriveLeafInsertsLabelsAndRefuses(t *testing.T) {
	t.Parallel()
	objs := []collectors.Object{
		{Level: collectors.Table, Schema: "s", Name: "t"},
		{Level: collectors.Index, Schema: "s", Name: "plain", Table: "t", Info: map[string]string{"method": "btree"}},
		{Level: collectors.Index, Schema: "s", Name: "partial", Table: "t", Info: map[string]string{"method": "btree", "partial": "true"}},
		{Level: collectors.Index, Schema: "s", Name: "gin", Table: "t", Info: map[string]string{"method": "gin"}},
	}
	d := delta(map[string]float64{"table:s.t:rows_inserted": 10, "table:s.t:rows_updated": 100, "table:s.t:hot_updates": 60}, objs...)
	DeriveLeafInserts(d)
	if m := d.Get(collectors.NewKey(collectors.Index, "s.plain", result.LeafInserts)); m.V() != 50 || m.Exactness != result.Derived || !strings.Contains(m.Source, "n_tup_hot_upd") {
		t.Errorf("plain %+v", m)
	}
	for _, n := range []string{"s.partial", "s.gin"} {
		if m := d.Get(collectors.NewKey(collectors.Index, n, result.LeafInserts)); m.OK() || m.Note == "" {
			t.Errorf("%s must be unavailable with a reason: %+v", n, m)
		}
	}
	// An exact WAL figure stays; a disagreeing table rule becomes a note.
	d = delta(map[string]float64{"table:s.t:rows_inserted": 10, "table:s.t:rows_updated": 100, "table:s.t:hot_updates": 60, "index:s.plain:leaf_inserts": 52}, objs...)
	DeriveLeafInserts(d)
	if m := d.Get(collectors.NewKey(collectors.Index, "s.plain", result.LeafInserts)); m.V() != 52 || m.Exactness != result.Exact || !strings.Contains(m.Note, "50") {
		t.Errorf("exact %+v", m)
	}
}

// The fillfactor advice only where free space can help: not when the updates
// change an indexed column (sysbench's oltp_update_index), which the updated
// columns or the non-HOT updates that stayed on their page reveal.
func TestWhyNotHOTAdvisesFillfactorOnlyWhereItHelps(t *testing.T) {
	t.Parallel()
	tbl := collectors.Object{Level: collectors.Table, Schema: "s", Name: "t"}
	idx := collectors.Object{Level: collectors.Index, Schema: "s", Name: "t_k", Table: "t", Info: map[string]string{"definition": "CREATE INDEX t_k ON s.t USING btree (k)"}}
	vals := map[string]float64{"table:s.t:rows_updated": 100, "table:s.t:hot_updates": 0, "table:s.t:newpage_updates": 30}
	// A wrapped command: 70 non-HOT updates stayed on their page.
	d := delta(vals, tbl, idx)
	DeriveTables(d)
	w := strings.Join(d.WarningTexts(), "\n")
	if !strings.Contains(w, "stayed on their page, so they changed an indexed column") || strings.Contains(w, "keeps them HOT") {
		t.Errorf("same-page non-HOT updates must not get the plain fillfactor advice: %q", w)
	}
	// The built-in workload says it updates k: a key change, named.
	d = delta(vals, tbl, idx)
	d.Writes = []collectors.Write{{Schema: "s", Table: "t", Kind: "update", Columns: []string{"k", "version"}, Rows: 100}}
	DeriveTables(d)
	w = strings.Join(d.WarningTexts(), "\n")
	if !strings.Contains(w, "k, a column of index t_k") || strings.Contains(w, "fillfactor") {
		t.Errorf("an updated key column must be named, without fillfactor advice: %q", w)
	}
	// It updates only v: every non-HOT update was a page move, and free space helps.
	vals["table:s.t:newpage_updates"] = 100
	d = delta(vals, tbl, idx)
	d.Writes = []collectors.Write{{Schema: "s", Table: "t", Kind: "update", Columns: []string{"v"}, Rows: 100}}
	DeriveTables(d)
	if w = strings.Join(d.WarningTexts(), "\n"); !strings.Contains(w, "change no indexed column, so free space") {
		t.Errorf("page moves of non-key updates get the advice: %q", w)
	}
	if !indexUses(`CREATE INDEX e ON s.t USING btree (lower(b)) WHERE flag`, "flag") || indexUses(`CREATE INDEX e ON s.t USING btree (kk)`, "k") {
		t.Error("indexUses must match whole column words in expressions and predicates only")
	}
}

// On PostgreSQL 13 an update moved off its page may have been writeamp's own
// doing (its wait sampler's snapshots hold the cluster's horizon): the
// warning says so, and how to avoid it, only there and only when the
// sampler read pg_stat_activity in the window.
func TestMovedUpdatesNameTheSamplerOn13(t *testing.T) {
	t.Parallel()
	warning := func(version int, samples float64, source string) string {
		d := delta(map[string]float64{"table:s.t:rows_updated": 100, "table:s.t:hot_updates": 99, "table:s.t:newpage_updates": 1},
			collectors.Object{Level: collectors.Table, Schema: "s", Name: "t"})
		d.Server.VersionNum = version
		if source != "" {
			d.Values[collectors.NewKey(collectors.DB, "", result.WaitSamples)] = result.New(samples, result.Approx, source)
		}
		DeriveTables(d)
		return strings.Join(d.WarningTexts(), "\n")
	}
	const clause = "on PostgreSQL 13 writeamp's wait sampler, which read pg_stat_activity 42 times in this window, is one possible holder"
	if w := warning(130023, 42, "pg_stat_activity.wait_event_type/wait_event: 42 samples"); !strings.Contains(w, "other open transactions still needed") ||
		!strings.Contains(w, clause) || !strings.Contains(w, "--waits=false avoids it") {
		t.Errorf("13 with the sampler: %q", w)
	}
	for _, c := range []struct {
		version int
		n       float64
		src     string
	}{{150018, 42, "pg_stat_activity.wait_event_type/wait_event"}, {130023, 0, ""}, {130023, 0, "pg_stat_activity.wait_event_type/wait_event"}} {
		if w := warning(c.version, c.n, c.src); !strings.Contains(w, "moved the row to another page") || strings.Contains(w, "wait sampler") {
			t.Errorf("%d, %v samples from %q: %q", c.version, c.n, c.src, w)
		}
	}
}
