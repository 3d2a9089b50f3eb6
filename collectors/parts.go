package collectors

import (
	"fmt"
	"sort"

	"github.com/writeamp/writeamp/result"
)

// Object.Info keys of objects written through others.
const (
	// InfoPartOf names (schema.name, same level) the object whose figures
	// include this one's: a partition's partitioned table or index, a TOAST
	// table's table.
	InfoPartOf = "part_of"
	// InfoPartitioned marks a partitioned table or index: it stores nothing
	// itself, its partitions hold its rows and entries.
	InfoPartitioned = "partitioned"
)

// DeriveParts makes an object's figures include its parts' (objects whose
// InfoPartOf names it): a partitioned table's or index's are the sum of its
// partitions' (its own counters count nothing, as nothing is stored in it),
// a table's are its own plus its TOAST table's. Each summable metric (every
// one but ratios) a part has is summed, with the weakest exactness of the
// figures summed; where a part has no figure the whole has none either,
// and says which part. It runs before the derivers that read a table's
// figures (HOT ratio, derived leaf inserts), so they see the totals.
func DeriveParts(d *Delta) {
	type okey struct {
		level Level
		fqn   string
	}
	objs := map[okey]Object{}
	for _, o := range d.Objects {
		objs[okey{o.Level, o.FQN()}] = o
	}
	parts := map[okey][]Object{}
	for _, o := range d.Objects {
		if w := o.Info[InfoPartOf]; w != "" {
			if _, ok := objs[okey{o.Level, w}]; ok {
				parts[okey{o.Level, w}] = append(parts[okey{o.Level, w}], o)
			}
		}
	}
	if len(parts) == 0 {
		return
	}
	metrics := map[okey][]string{}
	for k := range d.Values {
		if k.Level == Table || k.Level == Index {
			ok := okey{k.Level, k.Object}
			if _, has := objs[ok]; has {
				metrics[ok] = append(metrics[ok], k.Metric)
			}
		}
	}
	done := map[okey]bool{}
	var total func(w okey, depth int)
	total = func(w okey, depth int) {
		if done[w] || depth > 64 {
			return
		}
		done[w] = true
		ps := parts[w]
		for _, p := range ps {
			total(okey{p.Level, p.FQN()}, depth+1) // a sub-partitioned partition first
		}
		whole := objs[w]
		stored := whole.Info[InfoPartitioned] != "true"
		names := map[string]bool{}
		for _, p := range ps {
			for _, m := range metrics[okey{p.Level, p.FQN()}] {
				if info, ok := result.Lookup(m); ok && !info.IsRatio() {
					names[m] = true
				}
			}
		}
		sorted := make([]string, 0, len(names))
		for m := range names {
			sorted = append(sorted, m)
		}
		sort.Strings(sorted)
		for _, m := range sorted {
			k := Key{Level: w.level, Object: w.fqn, Metric: m}
			var sum float64
			ex := result.Exact
			var src, why string
			if stored {
				own, ok := d.Values[k]
				if !ok {
					continue // nothing of its own to add the parts to
				}
				if !own.OK() {
					continue // its own figure is already unavailable, and says why
				}
				sum, ex = own.V(), own.Exactness
				src = own.Source + "; plus its " + partNoun(ps)
			}
			for _, p := range ps {
				pm, ok := d.Values[Key{Level: p.Level, Object: p.FQN(), Metric: m}]
				if !ok || !pm.OK() {
					why = fmt.Sprintf("%s has no %s figure", p.Name, m)
					if ok && pm.Note != "" {
						why += " (" + pm.Note + ")"
					}
					break
				}
				sum += pm.V()
				ex = result.Weaker(ex, pm.Exactness)
				if src == "" {
					src = fmt.Sprintf("sum over its %d %s: %s", len(ps), partNoun(ps), pm.Source)
				}
			}
			if why != "" {
				d.Values[k] = result.NA("sum over its "+partNoun(ps), "its figure includes its parts', and "+why)
				continue
			}
			d.Values[k] = result.Metric{Value: &sum, Exactness: ex, Source: src}
		}
	}
	for w := range parts {
		total(w, 0)
	}
}

func partNoun(ps []Object) string {
	if len(ps) == 1 && ps[0].Info["toast"] == "table" {
		return "TOAST table"
	}
	if len(ps) == 1 {
		return "partition"
	}
	return "partitions"
}
