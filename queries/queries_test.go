package queries

import (
	"strings"
	"testing"
)

func TestParseBlocksAndVersionGates(t *testing.T) {
	text := `-- file header
-- name: a
-- explains a
-- max_version: 160000
SELECT 1
-- name: a
-- min_version: 160000
SELECT 2;
-- name: b
SELECT 3
  -- trailing comment stays with the statement
`
	bs, err := Parse("x", "x.sql", text)
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 3 {
		t.Fatalf("got %d blocks, want 3", len(bs))
	}
	if bs[0].SQL != "SELECT 1" || bs[0].MaxVersion != 160000 || bs[0].MinVersion != 0 {
		t.Errorf("block 0 = %+v", bs[0])
	}
	if bs[1].SQL != "SELECT 2;" || bs[1].MinVersion != 160000 {
		t.Errorf("block 1 = %+v", bs[1])
	}
	if !bs[0].Applies(150000) || bs[0].Applies(160000) || !bs[1].Applies(160000) || bs[1].Applies(159999) {
		t.Error("version ranges are [min, max)")
	}
	if !strings.Contains(bs[2].SQL, "trailing comment") {
		t.Errorf("comments inside a statement are kept: %q", bs[2].SQL)
	}
}

func TestBadVersionHeader(t *testing.T) {
	if _, err := Parse("x", "x.sql", "-- name: a\n-- min_version: fifteen\nSELECT 1\n"); err == nil {
		t.Fatal("a non-numeric min_version must be an error")
	}
}

func TestEmbeddedFilesLoadAndGatesDoNotOverlap(t *testing.T) {
	if err := LoadError(); err != nil {
		t.Fatal(err)
	}
	all := All()
	if len(all) == 0 {
		t.Fatal("no embedded queries")
	}
	byName := map[string][]Block{}
	for _, b := range all {
		if strings.TrimSpace(b.SQL) == "" {
			t.Errorf("%s/%s (%s) is empty", b.Dialect, b.Name, b.File)
		}
		byName[b.Dialect+"/"+b.Name] = append(byName[b.Dialect+"/"+b.Name], b)
	}
	// Two variants of one name must never both apply to a version: the
	// server would get whichever came first.
	for name, bs := range byName {
		for v := 90000; v <= 250000; v += 100 {
			n := 0
			for _, b := range bs {
				if b.Applies(v) {
					n++
				}
			}
			if n > 1 {
				t.Errorf("%s: %d variants apply to version %d", name, n, v)
				break
			}
		}
	}
}

func TestGetPicksTheVersionVariant(t *testing.T) {
	q15, err := Get("postgres", "pg_stat_relations", 150020)
	if err != nil {
		t.Fatal(err)
	}
	q16, err := Get("postgres", "pg_stat_relations", 160004)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(q15, "newpage") || !strings.Contains(q16, "pg_stat_get_tuples_newpage_updated") {
		t.Errorf("15 must not read n_tup_newpage_upd, 16 must:\n15: %s\n16: %s", q15, q16)
	}
	if _, err := Get("postgres", "pg_stat_wal", 130011); err == nil {
		t.Error("pg_stat_wal has no variant for 13")
	}
	if _, err := Get("postgres", "no_such_block", 150000); err == nil {
		t.Error("unknown block must be an error")
	}
}

// A block's {{block:NAME}} is NAME's text for the versions it serves; an
// include with no single variant for all of them, or of a block that
// includes another, is a load error, not a query sent half-made.
func TestIncludesExpandOrRefuse(t *testing.T) {
	parse := func(text string) map[string][]Block {
		t.Helper()
		bs, err := Parse("postgres", "t.sql", text)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string][]Block{}
		for _, b := range bs {
			m[b.Dialect+"/"+b.Name] = append(m[b.Dialect+"/"+b.Name], b)
		}
		return m
	}
	m := parse("-- name: frag\n-- min_version: 150000\nSELECT 1\n\n-- name: q\n-- min_version: 160000\nSELECT * FROM ({{block:frag}}) f\n")
	if err := expandIncludes(m); err != nil {
		t.Fatal(err)
	}
	if got := m["postgres/q"][0].SQL; got != "SELECT * FROM (SELECT 1) f" {
		t.Errorf("q is %q", got)
	}
	for _, bad := range []string{
		// frag serves 15 only, q 15 on
		"-- name: frag\n-- min_version: 150000\n-- max_version: 160000\nSELECT 1\n\n-- name: q\n-- min_version: 150000\nSELECT ({{block:frag}})\n",
		// two variants of frag for q's versions
		"-- name: frag\n-- max_version: 160000\nSELECT 1\n\n-- name: frag\n-- min_version: 160000\nSELECT 2\n\n-- name: q\nSELECT ({{block:frag}})\n",
		// nested
		"-- name: a\nSELECT 1\n\n-- name: frag\nSELECT ({{block:a}})\n\n-- name: q\nSELECT ({{block:frag}})\n",
		// unknown, unterminated
		"-- name: q\nSELECT ({{block:nope}})\n",
		"-- name: q\nSELECT ({{block:nope)\n",
	} {
		if err := expandIncludes(parse(bad)); err == nil {
			t.Errorf("no error for\n%s", bad)
		}
	}
}
