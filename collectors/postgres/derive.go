package postgres

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/writeamp/writeamp/collectors"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/result"
)

// DeriveTables makes partitioned tables' and TOAST-owning tables' figures
// include their parts' (collectors.DeriveParts, first: the ratios below and
// the derived leaf inserts read the totals), then adds the HOT ratio and
// flags background work in the window.
func DeriveTables(d *collectors.Delta) {
	collectors.DeriveParts(d)
	for _, o := range d.Objects {
		if o.Level != collectors.Table {
			continue
		}
		t := o.FQN()
		upd := d.Get(collectors.NewKey(collectors.Table, t, result.RowsUpdated))
		hot := d.Get(collectors.NewKey(collectors.Table, t, result.HotUpdates))
		if d.Has(collectors.NewKey(collectors.Table, t, result.RowsUpdated)) {
			d.Put(collectors.NewKey(collectors.Table, t, result.HotRatio), result.Ratio(hot, upd, "derived: n_tup_hot_upd / n_tup_upd"))
		}
		if upd.OK() && hot.OK() {
			nonHOT := upd.V() - hot.V()
			d.Put(collectors.NewKey(collectors.Table, t, result.NonHotUpdates), result.New(nonHOT, result.Derived, "derived: n_tup_upd - n_tup_hot_upd"))
			if w := whyNotHOT(d, o, nonHOT, d.Get(collectors.NewKey(collectors.Table, t, result.NewpageUpdates))); w != "" {
				d.Warn(collectors.WarnNotHOT, t, "", w)
			}
		}
		for _, m := range []*result.Info{result.AutovacuumRuns, result.AutoanalyzeRuns, result.VacuumRuns} {
			if v := d.Get(collectors.NewKey(collectors.Table, t, m)); v.OK() && v.V() > 0 {
				what := strings.TrimSuffix(m.Name, "_runs")
				d.Warn(collectors.WarnMaintenance, t, m.Name, fmt.Sprintf("%s: %s ran %.0f time(s) inside the window; its WAL is included", t, what, v.V()))
			}
		}
	}
}

// whyNotHOT says why a table's updates were not HOT, as far as the window
// can tell, and gives the fillfactor advice only where it can help. An update
// is HOT only if it changes no indexed column AND its new version fits on the
// same page: the updated columns (known for the built-in workload) or the
// non-HOT updates that stayed on their page (which can only have changed an
// indexed column) show a key change, which no free space fixes.
func whyNotHOT(d *collectors.Delta, t collectors.Object, nonHOT float64, np result.Metric) string {
	if nonHOT <= 0 {
		return ""
	}
	name := t.FQN()
	known, keyCols := updatedIndexColumns(d, t)
	if len(keyCols) > 0 {
		return fmt.Sprintf("%s: %.0f non-HOT updates: the workload's UPDATE sets %s, so none of those updates can be HOT and each adds an entry to every index of the table", name, nonHOT, strings.Join(keyCols, "; "))
	}
	if !np.OK() || np.V() <= 0 {
		return ""
	}
	moved := fmt.Sprintf("%s: %.0f of its %.0f non-HOT updates moved the row to another page: the new version did not fit on its page, which was full or whose dead versions other open transactions still needed (each such update added an entry to every index)", name, np.V(), nonHOT) + samplerHeldHorizon(d)
	switch samePage := nonHOT - np.V(); {
	case known:
		return moved + "; the updates change no indexed column, so free space on the page (a lower fillfactor) keeps them HOT"
	case samePage > 0:
		return fmt.Sprintf("%s; the other %.0f stayed on their page, so they changed an indexed column: free space (a lower fillfactor) helps only updates that change no indexed column", moved, samePage)
	default:
		return moved + "; if the updates change no indexed column, free space on the page (a lower fillfactor) keeps them HOT"
	}
}

// samplerHeldHorizon names writeamp's own wait sampler among the holders of
// the pruning horizon where it can be one: PostgreSQL 13 computes the
// horizon over the whole cluster, so each pg_stat_activity reading's
// snapshot, though taken in another database, keeps dead versions from
// being pruned while it runs (measure's horizon test counts the updates it
// moves). 14+ prune by the database's own horizon, and a window without
// the sampler's readings has no such holder of writeamp's.
func samplerHeldHorizon(d *collectors.Delta) string {
	if pg.PerDatabaseHorizon(d.Server) {
		return ""
	}
	n := d.Get(collectors.NewKey(collectors.DB, "", result.WaitSamples))
	if !n.OK() || n.V() <= 0 || !strings.HasPrefix(n.Source, "pg_stat_activity") {
		return ""
	}
	return fmt.Sprintf("; on PostgreSQL 13 writeamp's wait sampler, which read pg_stat_activity %.0f times in this window, is one possible holder: each reading's snapshot, though taken in another database, holds back the cluster-wide pruning horizon while it runs; --waits=false avoids it", n.V())
}

// updatedIndexColumns reports whether the window's UPDATE statements are
// known (the built-in workload), and which of their columns an index of the
// table uses (key, INCLUDE, expression or predicate: any blocks HOT).
func updatedIndexColumns(d *collectors.Delta, t collectors.Object) (known bool, hits []string) {
	cols := map[string]bool{}
	for _, w := range d.Writes {
		if w.Kind == "update" && strings.EqualFold(w.Table, t.Name) && (w.Schema == "" || w.Schema == t.Schema) {
			known = true
			for _, c := range w.Columns {
				cols[strings.ToLower(c)] = true
			}
		}
	}
	for _, o := range d.Objects {
		if o.Level != collectors.Index || o.Schema != t.Schema || o.Table != t.Name {
			continue
		}
		for _, c := range sortedKeys(cols) {
			if indexUses(o.Info["definition"], c) {
				hits = append(hits, fmt.Sprintf("%s, a column of index %s", c, o.Name))
			}
		}
	}
	return known, hits
}

// indexUses reports whether an index definition (pg_get_indexdef) names the
// column as a word, after "USING": keys, expressions, INCLUDE and WHERE.
func indexUses(def, col string) bool {
	i := strings.Index(strings.ToUpper(def), " USING ")
	if i < 0 {
		return false
	}
	return regexp.MustCompile(`(?i)(^|[^a-z0-9_$"])"?` + regexp.QuoteMeta(col) + `"?($|[^a-z0-9_$])`).MatchString(def[i:])
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// DeriveLeafInserts fills per-index leaf inserts from the table counters when
// pg_walinspect gave none: a non-HOT update inserts a new entry into every
// index of the table (changed key or not), an insert into every index, so a
// plain b-tree gets n_tup_ins + n_tup_upd - n_tup_hot_upd. A partial index gets
// entries only for rows matching its predicate, so it cannot be derived.
// Where the WAL did give the exact figure, the derived one is noted beside it
// as a cross-check.
func DeriveLeafInserts(d *collectors.Delta) {
	for _, o := range d.Objects {
		if o.Level != collectors.Index {
			continue
		}
		t := o.Schema + "." + o.Table
		ins := d.Get(collectors.NewKey(collectors.Table, t, result.RowsInserted))
		upd := d.Get(collectors.NewKey(collectors.Table, t, result.RowsUpdated))
		hot := d.Get(collectors.NewKey(collectors.Table, t, result.HotUpdates))
		k := collectors.NewKey(collectors.Index, o.FQN(), result.LeafInserts)
		const src = "derived: pg_stat_user_tables n_tup_ins + n_tup_upd - n_tup_hot_upd"
		var derived result.Metric
		switch {
		case o.Info["toast"] == "index":
			derived = result.NA(src, "TOAST index: it gets an entry per TOAST chunk written, which no table counter counts")
		case o.Info["method"] != "btree":
			derived = result.NA(src, "not a b-tree index ("+o.Info["method"]+")")
		case o.Info["partial"] == "true":
			derived = result.NA(src, "partial index: only rows matching its predicate get entries, which the table counters cannot tell")
		case !ins.OK() || !upd.OK() || !hot.OK():
			derived = result.NA(src, "table counters unavailable")
		default:
			derived = result.New(ins.V()+upd.V()-hot.V(), result.Derived, src)
			derived.Note = "inserts + non-HOT updates; pg_walinspect was not available"
		}
		if m, ok := d.Values[k]; ok && m.OK() {
			if derived.OK() && derived.V() != m.V() {
				m.Note = fmt.Sprintf("table counters suggest %.0f (inserts + non-HOT updates)", derived.V())
				d.Values[k] = m
			}
			continue
		}
		d.Values[k] = derived
	}
}
