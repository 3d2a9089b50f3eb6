package result

import "strings"

// Objects written through others carry in Info "part_of": the schema.name
// of the object (same level) whose figures include theirs: a partition's
// partitioned table or index, a TOAST table's table. A partitioned table or
// index ("partitioned": "true") stores nothing itself; its figures are its
// partitions' sum. Sums over a run's objects count each part once, through
// its whole, where the whole is listed too.

// PartOf is the schema.name of the object whose figures include o's, "" if none.
func (o Object) PartOf() string { return o.Info["part_of"] }

func (o Object) fqn() string { return strings.ToLower(o.Schema + "." + o.Name) }

// Counted returns whether an object of objs is to be added into a sum over
// objs: not a part whose whole is also in objs (and so already counts it).
func Counted(objs []Object) func(Object) bool {
	present := map[string]bool{}
	for _, o := range objs {
		present[o.fqn()] = true
	}
	return func(o Object) bool {
		p := o.PartOf()
		return p == "" || !present[strings.ToLower(p)]
	}
}

// TableIndexes are the indexes whose entries a table's index entries are:
// the table's own, and those of the tables that are parts of it (its
// partitions, at any depth) that are not parts of an index already counted.
// table is a name, schema-qualified or not.
func (r *Run) TableIndexes(table string) []Object {
	of := map[string]bool{strings.ToLower(bareName(table)): true}
	// The tables that are parts of it, to any depth (a few rounds: a part's
	// whole is listed before or after it).
	for changed := true; changed; {
		changed = false
		for _, t := range r.Tables {
			if p := t.PartOf(); p != "" && of[strings.ToLower(bareName(p))] && !of[strings.ToLower(t.Name)] {
				of[strings.ToLower(t.Name)], changed = true, true
			}
		}
	}
	var mine []Object
	for _, ix := range r.Indexes {
		if ix.Table != "" && of[strings.ToLower(bareName(ix.Table))] {
			mine = append(mine, ix)
		}
	}
	counted := Counted(mine)
	out := mine[:0:0]
	for _, ix := range mine {
		if counted(ix) {
			out = append(out, ix)
		}
	}
	return out
}

func bareName(s string) string {
	if i := strings.LastIndex(s, "."); i >= 0 {
		return s[i+1:]
	}
	return s
}
