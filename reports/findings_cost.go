package reports

import (
	"fmt"
	"sort"
	"strings"

	"github.com/writeamp/writeamp/dialects"
	"github.com/writeamp/writeamp/result"
)

// costFindings are a single run's largest costs and where they go: its log
// volume and the objects that wrote most of it, the index entries it adds,
// and how many of its updates were not HOT.
func costFindings(c *Comparison, res *result.Result) []result.Finding {
	var out []result.Finding
	add := func(f result.Finding, ok bool) {
		if ok {
			f.Kind, f.Rank, f.Unit = "cost", len(out)+1, unitOf(c, f.Metric)
			f.Rule = "a single run: its largest costs, in a fixed order"
			out = append(out, f)
		}
	}
	add(logCost(c, res.Server.Dialect))
	add(operationFinding(c, res.Server.Dialect))
	add(indexCost(c))
	add(hotCost(c))
	for _, f := range replicaFindings(c) {
		add(f, true)
	}
	return out
}

func who(c *Comparison) (string, string) {
	if c.PerOp == "" {
		return "the window", "wrote"
	}
	return "each " + c.PerOp, "writes"
}

func rowOf(sec Section, metric string) (Cell, bool) {
	for _, r := range sec.Rows {
		if r.Metric == metric {
			return r.Cells[0], true
		}
	}
	return Cell{}, false
}

func logCost(c *Comparison, dialect string) (result.Finding, bool) {
	var db Section
	for _, s := range c.Sections {
		if s.Kind == "database" {
			db = s
		}
	}
	cell, ok := rowOf(db, result.LogBytes.Name)
	metric := result.LogBytes.Name
	if !ok || !cell.Metric.OK() {
		if cell, ok = rowOf(db, result.LogBytesInScope.Name); !ok || !cell.Metric.OK() {
			return result.Finding{}, false
		}
		metric = result.LogBytesInScope.Name
	}
	v, _ := value(c, metric, cell)
	e := cell.Metric.Exactness
	type part struct {
		name string
		v    float64
	}
	var parts []part
	for _, s := range c.Sections {
		if pc, ok := rowOf(s, result.LogBytes.Name); ok && s.Kind != "database" && !s.Part && pc.Metric.OK() {
			pv, _ := value(c, result.LogBytes.Name, pc)
			parts = append(parts, part{s.Object, pv})
			e = result.Weaker(e, pc.Metric.Exactness)
		}
	}
	sort.SliceStable(parts, func(i, j int) bool { return parts[i].v > parts[j].v })
	var where []string
	for _, p := range parts[:min(3, len(parts))] {
		if v > 0 && p.v > 0 {
			where = append(where, fmt.Sprintf("%s %s (%.0f%%)", p.name, fmtVal(c, result.LogBytes.Name, p.v), 100*p.v/v))
		}
	}
	subject, verb := who(c)
	if rp, standby := rowOf(db, result.ReplayedLogBytes.Name); standby {
		// A standby's own log is the primary's, received (its log_bytes,
		// when it streams) and replayed; a paused one replays it later.
		verb = standbyVerb(c, db, rp, verb)
	}
	text := fmt.Sprintf("%s %s %s of %s", subject, verb, fmtVal(c, metric, v), dialects.LogName(dialect))
	if metric == result.LogBytesInScope.Name {
		text += " on the workload's objects"
	}
	var extra []string
	if len(where) > 0 {
		extra = append(extra, "the most to "+strings.Join(where, ", "))
	}
	if fc, ok := rowOf(db, result.FpiBytes.Name); ok && fc.Metric.OK() && v > 0 {
		if fv, _ := value(c, result.FpiBytes.Name, fc); fv/v >= 0.1 {
			extra = append(extra, fmt.Sprintf("full-page images %s of it (%.0f%%)", fmtVal(c, result.FpiBytes.Name, fv), 100*fv/v))
		}
	}
	if len(extra) > 0 {
		text += ": " + strings.Join(extra, "; ")
	}
	text += strings.Replace(exactnessWords(e), ";", " (", 1) + map[bool]string{true: ")", false: ""}[e != result.Exact]
	return result.Finding{Metric: metric, Level: "database", Object: "database", Value: ptr(v), Exactness: e, Text: text}, true
}

func indexCost(c *Comparison) (result.Finding, bool) {
	type grp struct {
		table, shown string
		v            float64
		names        []string
	}
	var groups []*grp
	byKey := map[string]*grp{}
	total, na, n := 0.0, 0, 0
	e := result.Exact
	for _, s := range c.Sections {
		cell, ok := rowOf(s, leafInserts)
		if s.Kind != "index" || !ok || s.Part {
			continue // a partition's index: in its partitioned index's entries
		}
		v, ok := value(c, leafInserts, cell)
		if !ok {
			na++
			continue
		}
		n++
		total += v
		e = result.Weaker(e, cell.Metric.Exactness)
		k := s.Table + "\x00" + fmtVal(c, leafInserts, v)
		if byKey[k] == nil {
			byKey[k] = &grp{table: s.Table, shown: fmtVal(c, leafInserts, v), v: v}
			groups = append(groups, byKey[k])
		}
		byKey[k].names = append(byKey[k].names, s.Object)
	}
	if n == 0 {
		return result.Finding{}, false
	}
	sort.SliceStable(groups, func(i, j int) bool {
		return float64(len(groups[i].names))*groups[i].v > float64(len(groups[j].names))*groups[j].v
	})
	var where []string
	for _, g := range groups[:min(3, len(groups))] {
		if g.v == 0 && total > 0 {
			continue // where the entries go, not where they do not
		}
		if len(g.names) == 1 {
			where = append(where, fmt.Sprintf("%s on %s%s", g.shown, g.names[0], ofTable(g.table)))
		} else {
			where = append(where, fmt.Sprintf("%s on each of %d indexes%s", g.shown, len(g.names), ofTable(g.table)))
		}
	}
	if len(groups) > 3 {
		where = append(where, "and less on the others")
	}
	subject, _ := who(c)
	verb := "adds"
	if c.PerOp == "" {
		verb = "added"
	}
	text := fmt.Sprintf("%s %s %s index entries: %s", subject, verb, fmtVal(c, leafInserts, total), strings.Join(where, ", "))
	if na > 0 {
		text += fmt.Sprintf(" (n/a on %d more indexes: see notes)", na)
	}
	text += strings.Replace(exactnessWords(e), ";", " (", 1) + map[bool]string{true: ")", false: ""}[e != result.Exact]
	return result.Finding{Metric: leafInserts, Level: "index", Object: fmt.Sprintf("%d indexes", n), Value: ptr(total), Exactness: e, Text: text}, true
}

func hotCost(c *Comparison) (result.Finding, bool) {
	var parts, objs []string
	e := result.Exact
	perTable := map[string]int{} // counted once: a scan per table was quadratic in a large catalog
	for _, o := range c.Columns[0].Run.Indexes {
		perTable[strings.ToLower(o.Table)]++
	}
	for _, s := range c.Sections {
		hc, ok1 := rowOf(s, result.HotRatio.Name)
		uc, ok2 := rowOf(s, result.RowsUpdated.Name)
		if s.Kind != "table" || s.Part || !ok1 || !ok2 || !hc.Metric.OK() || !uc.Metric.OK() || uc.Metric.V() == 0 {
			continue
		}
		e = result.Weaker(e, hc.Metric.Exactness)
		ratio := hc.Metric.V()
		p := fmt.Sprintf("%.1f%% on %s", 100*ratio, s.Object)
		if ratio < 1 {
			upd, _ := value(c, result.RowsUpdated.Name, uc)
			n := perTable[strings.ToLower(s.Object)]
			all := fmt.Sprintf("all %d of its indexes", n)
			if n == 1 {
				all = "its index"
			}
			p += fmt.Sprintf(" (its %s non-HOT updates%s each add an entry to %s)", fmtVal(c, result.RowsUpdated.Name, upd*(1-ratio)), perUnit(c), all)
		}
		parts = append(parts, p)
		objs = append(objs, s.Object)
	}
	if len(parts) == 0 {
		return result.Finding{}, false
	}
	text := "HOT updates " + strings.Join(parts, ", ") + exactnessWords(e)
	return result.Finding{Metric: result.HotRatio.Name, Level: "table", Object: strings.Join(objs, ", "), Objects: objs, Exactness: e, Text: text}, true
}

// leafInserts is the metric a single run's cost findings lead with.
var leafInserts = result.LeafInserts.Name
