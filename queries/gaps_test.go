package queries

import (
	"fmt"
	"slices"
	"testing"
)

// supportedPG are PostgreSQL 13-18, as server_version_num.
var supportedPG = []int{130000, 140000, 150000, 160000, 170000, 180000}

// gaps returns, per block name, the versions among points where the block
// has no variant although it has one at a lower and at a higher point: a
// query that exists before and after a version but not at it is a gap, where
// a lookup would fail on a supported server. A query that starts at a
// version (pg_stat_io, 16+) or ends at one (its successor takes over) is not.
func gaps(bs []Block, points []int) []string {
	byName := map[string][]Block{}
	for _, b := range bs {
		byName[b.Dialect+"/"+b.Name] = append(byName[b.Dialect+"/"+b.Name], b)
	}
	var out []string
	for name, vs := range byName {
		has := func(v int) bool {
			return slices.ContainsFunc(vs, func(b Block) bool { return b.Applies(v) })
		}
		first, last := -1, -1
		for i, p := range points {
			if has(p) {
				if first < 0 {
					first = i
				}
				last = i
			}
		}
		for i := first + 1; first >= 0 && i < last; i++ {
			if !has(points[i]) {
				out = append(out, fmt.Sprintf("%s has no variant for version %d", name, points[i]))
			}
		}
		// and no two variants for one version (Get would pick the first)
		for _, p := range points {
			n := 0
			for _, b := range vs {
				if b.Applies(p) {
					n++
				}
			}
			if n > 1 {
				out = append(out, fmt.Sprintf("%s has %d variants for version %d", name, n, p))
			}
		}
	}
	slices.Sort(out)
	return out
}

// versionPoints are a dialect's supported versions and both sides of every
// boundary its block headers draw.
func versionPoints(dialect string, bs []Block) []int {
	var ps []int
	if dialect == "postgres" {
		for _, v := range supportedPG {
			ps = append(ps, v, v+9999)
		}
	}
	for _, b := range bs {
		if b.Dialect != dialect {
			continue
		}
		for _, v := range []int{b.MinVersion, b.MaxVersion} {
			if v > 0 {
				ps = append(ps, v-1, v)
			}
		}
	}
	slices.Sort(ps)
	return slices.Compact(ps)
}

// Every query of every dialect has a variant for each supported version
// between the first and the last it exists for: the headers are the only
// version gates, and a gap or an overlap between them fails here.
func TestEveryVersionHasEveryQuery(t *testing.T) {
	all := All()
	for _, d := range []string{"postgres", "mysql", "sqlserver", "oracle"} {
		var bs []Block
		for _, b := range all {
			if b.Dialect == d {
				bs = append(bs, b)
			}
		}
		if len(bs) == 0 {
			t.Fatalf("no %s blocks", d)
		}
		for _, g := range gaps(bs, versionPoints(d, bs)) {
			t.Error(g)
		}
	}
}

// A gap between two variants fails; a query that starts at 16 does not.
func TestAGapFails(t *testing.T) {
	bs, err := Parse("postgres", "t.sql", `-- name: a
-- max_version: 150000
SELECT 1
-- name: a
-- min_version: 160000
SELECT 2
-- name: io
-- min_version: 160000
SELECT 3
`)
	if err != nil {
		t.Fatal(err)
	}
	got := gaps(bs, versionPoints("postgres", bs))
	if len(got) == 0 || got[0] != "postgres/a has no variant for version 150000" {
		t.Errorf("gaps %q", got)
	}
	for _, g := range got {
		if g[:len("postgres/io")] == "postgres/io" {
			t.Errorf("a query that starts at 16 is not a gap: %s", g)
		}
	}
}
