package reports

import (
	"fmt"
	"math"
	"sort"
)

// DefaultTop is how many tables and how many indexes the table, markdown
// and html formats show when Options.Top is 0: a report of a 50,000-index
// catalog is unreadable and costs more to lay out than to compute. json and
// csv always carry every object.
const DefaultTop = 25

// limit keeps the top most active table and index sections of c (all when
// top < 0) in their name order, and says in the notes what it left out.
// The findings and claims were computed from every object before this.
func (c *Comparison) limit(top int) {
	if top == 0 {
		top = DefaultTop
	}
	if top < 0 {
		return
	}
	type ranked struct {
		i              int
		active, weight float64
	}
	byKind := map[string][]ranked{}
	for i, s := range c.Sections {
		if s.Kind != "table" && s.Kind != "index" || len(s.Rows) == 0 {
			continue
		}
		a, w := activity(s)
		byKind[s.Kind] = append(byKind[s.Kind], ranked{i, a, w})
	}
	drop := map[int]bool{}
	for _, kind := range []string{"table", "index"} {
		rs := byKind[kind]
		if len(rs) <= top {
			continue
		}
		sort.SliceStable(rs, func(a, b int) bool {
			if rs[a].active != rs[b].active {
				return rs[a].active > rs[b].active
			}
			return rs[a].weight > rs[b].weight
		})
		for _, r := range rs[top:] {
			drop[r.i] = true
		}
		plural := map[string]string{"table": "tables", "index": "indexes"}[kind]
		c.Notes = append(c.Notes, fmt.Sprintf("shown: the %d most active of %d %s (most metrics that changed, then the largest values); every object is in --format json and csv, and --top 0 shows all", top, len(rs), plural))
	}
	if len(drop) == 0 {
		return
	}
	kept := c.Sections[:0:0]
	for i, s := range c.Sections {
		if !drop[i] {
			kept = append(kept, s)
		}
	}
	c.Sections = kept
}

// activity ranks a section: how many of its rows carry a non-zero value in
// some run, then the sum of each row's largest value.
func activity(s Section) (float64, float64) {
	n, sum := 0.0, 0.0
	for _, r := range s.Rows {
		top := 0.0
		for _, cell := range r.Cells {
			if cell.Present && cell.Metric.OK() {
				top = math.Max(top, math.Abs(cell.Metric.V()))
			}
		}
		if top > 0 {
			n++
		}
		sum += top
	}
	return n, sum
}
