package postgres

import (
	"fmt"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/result"
)

func key(level collectors.Level, obj, metric string) collectors.Key {
	return collectors.Key{Level: level, Object: obj, Metric: metric}
}

// DeriveTables adds the HOT ratio and flags background work in the window.
func DeriveTables(d *collectors.Delta) {
	for _, o := range d.Objects {
		if o.Level != collectors.Table {
			continue
		}
		t := o.FQN()
		upd := d.Get(key(collectors.Table, t, "rows_updated"))
		hot := d.Get(key(collectors.Table, t, "hot_updates"))
		if d.Has(key(collectors.Table, t, "rows_updated")) {
			d.Put(key(collectors.Table, t, "hot_ratio"), result.Ratio(hot, upd, "derived: n_tup_hot_upd / n_tup_upd"))
		}
		// Say why updates were not HOT when the WAL or PG16's counter can tell:
		// a page-full move is fixed by free space, a key change by the schema.
		np := d.Get(key(collectors.Table, t, "newpage_updates"))
		if upd.OK() && hot.OK() {
			nonHOT := upd.V() - hot.V()
			d.Put(key(collectors.Table, t, "non_hot_updates"), result.New(nonHOT, result.Derived, "derived: n_tup_upd - n_tup_hot_upd"))
			if np.OK() && np.V() > 0 && nonHOT > 0 {
				d.Warnings = append(d.Warnings, fmt.Sprintf("%s: %.0f of its %.0f non-HOT updates moved the row to another page: the new version did not fit on its page, which was full or whose dead versions other open transactions still needed (each such update added an entry to every index); free space on the page (a lower fillfactor) keeps them HOT", t, np.V(), nonHOT))
			}
		}
		for _, m := range []string{"autovacuum_runs", "autoanalyze_runs", "vacuum_runs"} {
			if v := d.Get(key(collectors.Table, t, m)); v.OK() && v.V() > 0 {
				d.Warnings = append(d.Warnings, fmt.Sprintf("%s: %s ran %.0f time(s) inside the window; its WAL is included", t, m[:len(m)-5], v.V()))
			}
		}
	}
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
		ins := d.Get(key(collectors.Table, t, "rows_inserted"))
		upd := d.Get(key(collectors.Table, t, "rows_updated"))
		hot := d.Get(key(collectors.Table, t, "hot_updates"))
		k := key(collectors.Index, o.FQN(), "leaf_inserts")
		const src = "derived: pg_stat_user_tables n_tup_ins + n_tup_upd - n_tup_hot_upd"
		var derived result.Metric
		switch {
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
