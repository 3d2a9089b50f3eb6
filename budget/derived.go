package budget

import (
	"fmt"
	"sort"
	"strings"

	"github.com/writeamp/writeamp/result"
)

// Table metrics budgets derive from the index rows of a run: no server
// counts them, and the runs keep what they measured only.

// indexEntriesName is the metric's name (result.IndexEntries).
var indexEntriesName = result.IndexEntries.Name

func isIndexEntries(b Budget) bool { return b.Metric == indexEntriesName }

// indexEntries is a table's index_entries in a run: the leaf inserts of all
// of its indexes, the ones a migration added included, so a budget on the
// table holds whatever indexes it gains or loses; its TOAST index's and, for
// a partitioned table, its partitions' (result.Run.TableIndexes). present is
// false when the run has neither the table nor an index of it.
func indexEntries(r *result.Run, table string) (result.Metric, bool) {
	var sum float64
	ex := result.Exact
	n := 0
	for _, ix := range r.TableIndexes(table) {
		m, ok := ix.Metrics[result.LeafInserts.Name]
		if !ok || !m.OK() {
			why := "leaf_inserts of index " + ix.Name + " was not measured"
			if ok && m.Note != "" {
				why = "leaf_inserts of index " + ix.Name + ": " + m.Note
			}
			return result.NA("", why), true
		}
		sum += m.V()
		ex = result.Weaker(ex, m.Exactness)
		n++
	}
	if n == 0 {
		if r.Table(table) == nil {
			return result.Metric{}, false
		}
		return result.NA("", "no index of "+table+" was measured"), true
	}
	return result.New(sum, ex, "derived: sum of leaf_inserts of the table's indexes"), true
}

// indexEntriesTables are the tables of either run with an index measured.
func indexEntriesTables(runs ...*result.Run) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range runs {
		for _, ix := range r.Indexes {
			if _, ok := ix.Metrics[result.LeafInserts.Name]; ok && ix.Table != "" && !seen[strings.ToLower(bare(ix.Table))] {
				seen[strings.ToLower(bare(ix.Table))] = true
				out = append(out, bare(ix.Table))
			}
		}
	}
	return out
}

// bare is a name without its schema.
func bare(name string) string {
	if i := strings.LastIndex(name, "."); i >= 0 {
		return name[i+1:]
	}
	return name
}

// indexEntriesTargets are the tables index_entries applies to: the one
// named, else every table with an index measured in either run.
func indexEntriesTargets(b Budget, before, after *result.Run) ([]target, string) {
	t := func(name string) target {
		return target{"table", name, func(r *result.Run) (result.Metric, bool) { return indexEntries(r, name) }}
	}
	if b.Object != "" {
		name := bare(b.Object)
		if _, ok := indexEntries(after, name); ok {
			return []target{t(name)}, ""
		}
		if _, ok := indexEntries(before, name); ok {
			return []target{t(name)}, ""
		}
		return nil, fmt.Sprintf("no table named %q was measured in either run (index_entries is a table's: the leaf inserts of all of its indexes)", b.Object)
	}
	var out []target
	for _, name := range indexEntriesTables(after, before) {
		out = append(out, t(name))
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].name < out[j].name })
	if len(out) == 0 {
		return nil, "no index with leaf_inserts was measured in either run, so no table has index_entries"
	}
	return out, ""
}
