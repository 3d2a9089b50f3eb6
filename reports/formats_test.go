package reports

import (
	"bytes"
	"encoding/csv"
	"regexp"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/result"
)

// split turns the two-variant fixture into two single-variant results, as
// `run --variants baseline` and `run --variants coarse` would have saved.
func split(t *testing.T) []Input {
	var in []Input
	for i, path := range []string{"base.json", "coarse.json"} {
		r := fixture(t)
		r.Runs = r.Runs[i : i+1]
		in = append(in, Input{Path: path, Result: r})
	}
	return in
}

func TestCompareOfSavedRunsReproducesTheRunTable(t *testing.T) {
	t.Parallel()
	merged, err := Merge(split(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"table", "markdown"} {
		var want, got bytes.Buffer
		if err := Render(&want, f, fixture(t), Options{}); err != nil {
			t.Fatal(err)
		}
		if err := Render(&got, f, merged, Options{}); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%s: compare of the two saved variants differs from the run's own report:\n%s", f, got.String())
		}
	}
}

func TestCompareLabels(t *testing.T) {
	t.Parallel()
	in := split(t)
	in[0].Label, in[1].Label = "before migration", "after migration"
	merged, _ := Merge(in)
	if merged.Runs[0].Label != "before migration" || merged.Runs[1].Label != "after migration" {
		t.Errorf("labels %q %q", merged.Runs[0].Label, merged.Runs[1].Label)
	}
	// The same variant twice (before/after a change): the file names tell them apart.
	same := split(t)
	same[1].Result = same[0].Result
	same[0].Path, same[1].Path = "runs/before.json", "runs/after.json"
	merged, _ = Merge(same)
	if merged.Runs[0].Label != "baseline (before.json)" || merged.Runs[1].Label != "baseline (after.json)" {
		t.Errorf("repeated labels not told apart: %q %q", merged.Runs[0].Label, merged.Runs[1].Label)
	}
}

func TestPerRowChangedWithoutOperationCounts(t *testing.T) {
	t.Parallel()
	r := fixture(t)
	for i := range r.Runs {
		r.Runs[i].Operations, r.Runs[i].MainOperation = nil, ""
	}
	c := FromResult(r)
	if c.PerOp != "row changed" {
		t.Fatalf("unit %q", c.PerOp)
	}
	// Both variants change the same rows: 2 tables x (1,500 inserts + 13,500
	// updates + 150 deletes; a session's first refresh updates nothing).
	if c.Denominators[0] != 30300 || c.Denominators[1] != 30300 {
		t.Errorf("rows changed %v", c.Denominators)
	}
	var buf bytes.Buffer
	if err := Table(&buf, c, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"PER ROW CHANGED", "rows changed", "30,300", "—"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("table lacks %q", want)
		}
	}
}

func TestCSVHasEveryNumberWithItsBasis(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := Render(&buf, "csv", fixture(t), Options{}); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(recs[0], ",") != "run,label,concurrency,level,schema,table,object,metric,value,exactness,source,note,unit,part_of" {
		t.Errorf("header %v", recs[0])
	}
	find := func(label, level, object, metric string) []string {
		for _, r := range recs {
			if r[1] == label && r[3] == level && r[6] == object && r[7] == metric {
				return r
			}
		}
		t.Fatalf("no row %s %s %s %s", label, level, object, metric)
		return nil
	}
	if r := find("coarse", "table", "offline_user_session", "hot_updates"); r[8] != "13500" || r[9] != "exact" || r[10] != "pg_stat_user_tables.n_tup_hot_upd" {
		t.Errorf("row %v", r)
	}
	if r := find("baseline", "index", "idx_user_session_expiration_last_refresh", "leaf_inserts"); r[8] != "15000" || r[5] != "offline_user_session" || !strings.Contains(r[10], "pg_walinspect") {
		t.Errorf("row %v", r)
	}
	if r := find("baseline", "run", "refresh", "latency_ms_p95"); r[9] != "approx" || r[8] == "" || r[12] != "ms" {
		t.Errorf("row %v", r)
	}
	// The exact number, with its unit from the catalogue.
	if r := find("baseline", "database", "", "log_bytes"); r[8] != "23484848" || r[12] != "bytes" {
		t.Errorf("row %v", r)
	}
	if r := find("coarse", "table", "offline_user_session", "hot_ratio"); r[8] != "1" || r[12] != "ratio" {
		t.Errorf("row %v", r)
	}
	if r := find("baseline", "per_operation", "refresh", "log_bytes"); r[12] != "bytes per refresh" {
		t.Errorf("row %v", r)
	}
	if r := find("coarse", "finding", "offline_user_session", "hot_ratio"); r[12] != "ratio" {
		t.Errorf("row %v", r)
	}
	// Every row has an exactness and a source.
	for _, r := range recs[1:] {
		if r[9] == "" || r[10] == "" {
			t.Errorf("row without basis: %v", r)
		}
	}
}

func TestHTMLIsSelfContainedWithChartsAndHoverBasis(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := Render(&buf, "html", fixture(t), Options{}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if regexp.MustCompile(`(?i)(src|href)=["']?https?://|<script|<link|@import|url\(`).MatchString(page) {
		t.Error("the page loads something at view time")
	}
	for _, id := range []string{"chart-leaf", "chart-log", "chart-hot", "chart-latency"} {
		if !strings.Contains(page, `id="`+id+`"`) {
			t.Errorf("no %s", id)
		}
	}
	if n := strings.Count(page, "<svg"); n != 5 {
		t.Errorf("%d charts, want 5 (leaf inserts, log bytes, HOT ratio, latency, throughput)", n)
	}
	// The headline bar: baseline's expiration index, 1 leaf insert per
	// refresh (10 per login), with its total, exactness and source on hover.
	if !strings.Contains(page, "<title>baseline: 1.000 per refresh · total 15,000 · exact · pg_walinspect") {
		t.Error("the leaf-insert bar has no hover basis")
	}
	if !strings.Contains(page, `title="coarse: hot ratio · derived · derived: n_tup_hot_upd / n_tup_upd"`) {
		t.Error("table cells have no hover basis")
	}
	if !strings.Contains(page, `<li id="src-1">`) {
		t.Error("no source footnotes")
	}
}

func TestNiceScale(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ max, top float64 }{{1.1, 2}, {2313, 2500}, {0.74, 1}, {99, 100}, {16500, 20000}} {
		if top, ticks := niceScale(c.max); top != c.top || len(ticks) < 3 {
			t.Errorf("niceScale(%v) = %v %v", c.max, top, ticks)
		}
	}
}

// A finding spec names a level the metric is kept at, and the ranks of the
// specs are distinct and below latency's (ties would rank by text).
func TestFindingSpecsAreConsistent(t *testing.T) {
	t.Parallel()
	ranks := map[int]string{}
	for _, m := range result.Metrics() {
		sp := m.Finding
		if sp == nil {
			continue
		}
		if !m.At(sp.Level) {
			t.Errorf("%s is judged at %s level but kept at %v", m.Name, sp.Level, m.Levels)
		}
		if sp.Level != result.LevelDatabase && !m.IsRatio() && (sp.Verb == "" || sp.Noun == "") {
			t.Errorf("%s: a %s-level finding needs a verb and a noun", m.Name, sp.Level)
		}
		if o, dup := ranks[sp.Rank]; dup || sp.Rank >= latencyRank {
			t.Errorf("%s: rank %d (also %q; latency is %d)", m.Name, sp.Rank, o, latencyRank)
		}
		ranks[sp.Rank] = m.Name
	}
	if !judged("log_bytes", "database") {
		t.Error("log_bytes is not judged at the database level")
	}
	if !judged("page_splits", "database") || judged("wait_samples", "database") || judged("leaf_inserts", "table") {
		t.Error("judged: every shown database metric, not bookkeeping, each spec at its own level")
	}
}
