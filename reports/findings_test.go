package reports

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/result"
)

// The expectations are computed from the fixture's own numbers, so the
// tests hold the rules, not one run's figures.

func perRefresh(r *result.Run, v float64) float64 { return v / float64(r.Operations["refreshes"]) }

func findingAbout(fs []result.Finding, metric, object string) *result.Finding {
	for i := range fs {
		if fs[i].Metric == metric && (object == "" || fs[i].Object == object || containsFold(fs[i].Objects, object)) {
			return &fs[i]
		}
	}
	return nil
}

func containsFold(xs []string, x string) bool {
	for _, s := range xs {
		if strings.EqualFold(s, x) {
			return true
		}
	}
	return false
}

func TestFindingsOfTheDefaultRun(t *testing.T) {
	t.Parallel()
	res := fixture(t)
	base, coarse := &res.Runs[0], &res.Runs[1]
	fs := FromResult(res).Findings
	if len(fs) < 3 {
		t.Fatalf("%d findings: %+v", len(fs), fs)
	}
	// Index entries: every index of offline_user_session present in both runs.
	for _, ix := range base.Indexes {
		other := coarse.Index(ix.Name)
		if !strings.EqualFold(ix.Table, "offline_user_session") || other == nil {
			continue
		}
		a := perRefresh(base, ix.Metrics["leaf_inserts"].V())
		b := perRefresh(coarse, other.Metrics["leaf_inserts"].V())
		f := findingAbout(fs, "leaf_inserts", ix.Name)
		if a == b {
			if f != nil {
				t.Errorf("%s: no change, yet a finding %q", ix.Name, f.Text)
			}
			continue
		}
		if f == nil {
			t.Errorf("%s: leaf inserts %.4f -> %.4f per refresh, no finding", ix.Name, a, b)
			continue
		}
		want := fmt.Sprintf("coarse writes %.1f%% fewer index entries per refresh (%s → %s on ", 100*(a-b)/a, fmtPer(a), fmtPer(b))
		if !strings.Contains(f.Text, want) || *f.Before != a || *f.After != b || f.Exactness != result.Exact {
			t.Errorf("%s: finding %q (%v -> %v), want it to contain %q", ix.Name, f.Text, *f.Before, *f.After, want)
		}
	}
	// HOT ratio of the session table.
	ha := base.Table("offline_user_session").Metrics["hot_ratio"].V()
	hb := coarse.Table("offline_user_session").Metrics["hot_ratio"].V()
	if f := findingAbout(fs, "hot_ratio", "offline_user_session"); f == nil ||
		!strings.Contains(f.Text, fmt.Sprintf("HOT updates %.1f%% → %.1f%% on offline_user_session", 100*ha, 100*hb)) ||
		!strings.Contains(f.Text, "derived") {
		t.Errorf("HOT finding %+v", f)
	}
	// WAL per refresh, beyond 5%.
	la, lb := perRefresh(base, base.Database["log_bytes"].V()), perRefresh(coarse, coarse.Database["log_bytes"].V())
	if f := findingAbout(fs, "log_bytes", "database"); math.Abs(lb-la)/la > relNoise &&
		(f == nil || !strings.Contains(f.Text, fmt.Sprintf("WAL per refresh %+.1f%% (", 100*(lb-la)/la))) {
		t.Errorf("WAL finding %+v", f)
	}
	// An index in one variant only is named.
	for _, ix := range base.Indexes {
		if coarse.Index(ix.Name) == nil {
			if f := findingAbout(fs, "leaf_inserts", ix.Name); f == nil || f.Kind != "removed" || !strings.Contains(f.Text, "exists only in baseline") {
				t.Errorf("%s only in baseline: %+v", ix.Name, f)
			}
		}
	}
	// Ranked: headline metrics first, each tier by effect.
	for i := 1; i < len(fs); i++ {
		a, b := fs[i-1], fs[i]
		if tier(a.Metric) > tier(b.Metric) || tier(a.Metric) == tier(b.Metric) && a.Effect < b.Effect {
			t.Errorf("rank %d (%s %.3f) before rank %d (%s %.3f)", a.Rank, a.Metric, a.Effect, b.Rank, b.Metric, b.Effect)
		}
	}
}

func fmtPer(v float64) string {
	if v == 0 {
		return "0"
	}
	if v < 0.1 {
		return fmt.Sprintf("%.3g", v)
	}
	return fmt.Sprintf("%.3f", v)
}

// setMetric changes one number of a run.
func setMetric(ms map[string]result.Metric, name string, v float64) {
	m := ms[name]
	m.Value = &v
	ms[name] = m
}

// twins is the fixture's baseline twice: the same work, the same numbers.
func twins(t *testing.T) *result.Result {
	r := fixture(t)
	r.Runs = []result.Run{r.Runs[0], r.Runs[0]}
	r.Runs[1].Variant = "again"
	r.Runs[1].Database = map[string]result.Metric{}
	for k, v := range r.Runs[0].Database {
		r.Runs[1].Database[k] = v
	}
	var ixs []result.Object
	for _, o := range r.Runs[0].Indexes {
		ms := map[string]result.Metric{}
		for k, v := range o.Metrics {
			ms[k] = v
		}
		o.Metrics = ms
		ixs = append(ixs, o)
	}
	r.Runs[1].Indexes = ixs
	return r
}

func TestFindingsNoiseRule(t *testing.T) {
	t.Parallel()
	ix := "idx_user_session_expiration_last_refresh"
	// The same work: one index entry more of 16,500 is real.
	r := twins(t)
	leaf := r.Runs[1].Index(ix).Metrics
	setMetric(leaf, "leaf_inserts", leaf["leaf_inserts"].V()+1)
	if f := findingAbout(FromResult(r).Findings, "leaf_inserts", ix); f == nil || !strings.Contains(f.Rule, "same work: any change") {
		t.Errorf("an exact count of the same work that moved by one: %+v", f)
	}
	// ... and the sentence shows two different numbers, not 1.100 → 1.100.
	if f := findingAbout(FromResult(r).Findings, "leaf_inserts", ix); f != nil {
		m := regexp.MustCompile(`\(([^ ]+) → ([^ ]+) `).FindStringSubmatch(f.Text)
		if m == nil || m[1] == m[2] {
			t.Errorf("the change is not visible in %q", f.Text)
		}
	}
	// A wrapped command: nobody knows the work was the same, 5% is the bar.
	for _, run := range []int{0, 1} {
		r.Runs[run].Command = []string{"psql", "-f", "work.sql"}
	}
	if f := findingAbout(FromResult(r).Findings, "leaf_inserts", ix); f != nil {
		t.Errorf("one entry in 16,500 of a wrapped command is noise: %q", f.Text)
	}
	setMetric(leaf, "leaf_inserts", leaf["leaf_inserts"].V()*1.1)
	if f := findingAbout(FromResult(r).Findings, "leaf_inserts", ix); f == nil || !strings.Contains(f.Rule, "beyond ±5%") {
		t.Errorf("10%% more entries of a wrapped command: %+v", f)
	}
	// Bytes: 3% is noise, 6% is not, even for the same work.
	r = twins(t)
	// (the measured objects' log grows with it: the out-of-scope share
	// stays, and the headline is the whole window's)
	lb, in := r.Runs[0].Database["log_bytes"].V(), r.Runs[0].Database["log_bytes_in_scope"].V()
	setMetric(r.Runs[1].Database, "log_bytes", lb*1.03)
	setMetric(r.Runs[1].Database, "log_bytes_in_scope", in*1.03)
	if f := findingAbout(FromResult(r).Findings, "log_bytes", ""); f != nil {
		t.Errorf("3%% more WAL is within the noise: %q", f.Text)
	}
	setMetric(r.Runs[1].Database, "log_bytes", lb*1.06)
	setMetric(r.Runs[1].Database, "log_bytes_in_scope", in*1.06)
	if f := findingAbout(FromResult(r).Findings, "log_bytes", ""); f == nil || !strings.Contains(f.Text, "WAL per refresh +6.0%") {
		t.Errorf("6%% more WAL: %+v", f)
	}
	// Repetitions of one run widen the bar to their spread: baseline twice
	// 8% apart, then a run 7% above the first is noise.
	r = twins(t)
	rep := r.Runs[1]
	rep.Variant = "baseline"
	rep.Database = map[string]result.Metric{}
	for k, v := range r.Runs[0].Database {
		rep.Database[k] = v
	}
	setMetric(rep.Database, "log_bytes", lb*1.08)
	r.Runs = []result.Run{r.Runs[0], rep, r.Runs[1]}
	setMetric(r.Runs[2].Database, "log_bytes", lb*1.07)
	c := FromResult(r)
	if f := findingAbout(c.Findings, "log_bytes", ""); f != nil {
		t.Errorf("within the repetitions' spread: %q", f.Text)
	}
	if !strings.Contains(c.FindingsRule, "repetitions") {
		t.Errorf("rule %q", c.FindingsRule)
	}
	// Latency: approx, beyond 25%.
	r = twins(t)
	l := r.Runs[1].LatencyMS["refresh"]
	l.P95 *= 1.2
	r.Runs[1].LatencyMS = map[string]result.Latency{"refresh": l}
	if f := findingAbout(FromResult(r).Findings, "latency", ""); f != nil {
		t.Errorf("20%% slower p95 is within the timing noise: %q", f.Text)
	}
	l.P95 *= 1.5
	r.Runs[1].LatencyMS = map[string]result.Latency{"refresh": l}
	if f := findingAbout(FromResult(r).Findings, "latency", ""); f == nil || !strings.Contains(f.Text, "approx") {
		t.Errorf("80%% slower p95: %+v", f)
	}
	// Nothing moved: one finding says so.
	if fs := FromResult(twins(t)).Findings; len(fs) != 1 || fs[0].Kind != "none" {
		t.Errorf("identical runs: %+v", fs)
	}
	// A derived number says so in the sentence.
	r = twins(t)
	m := r.Runs[1].Index(ix).Metrics["leaf_inserts"]
	m.Exactness = result.Derived
	v := m.V() * 2
	m.Value = &v
	r.Runs[1].Index(ix).Metrics["leaf_inserts"] = m
	if f := findingAbout(FromResult(r).Findings, "leaf_inserts", ix); f == nil || !strings.Contains(f.Text, "; derived)") {
		t.Errorf("derived: %+v", f)
	}
}

func TestSingleRunFindingsAreItsCosts(t *testing.T) {
	t.Parallel()
	r := fixture(t)
	r.Runs = r.Runs[:1]
	run := &r.Runs[0]
	fs := FromResult(r).Findings
	if len(fs) != 3 || fs[0].Kind != "cost" {
		t.Fatalf("findings %+v", fs)
	}
	wal := perRefresh(run, run.Database["log_bytes"].V())
	if !strings.HasPrefix(fs[0].Text, fmt.Sprintf("each refresh writes %s of WAL: the most to ", result.FormatBytes(wal))) {
		t.Errorf("WAL cost %q", fs[0].Text)
	}
	var entries float64
	for _, ix := range run.Indexes {
		entries += ix.Metrics["leaf_inserts"].V()
	}
	if !strings.HasPrefix(fs[1].Text, fmt.Sprintf("each refresh adds %s index entries: ", result.FormatPerUnitCount(perRefresh(run, entries)))) {
		t.Errorf("index cost %q", fs[1].Text)
	}
	if hr := run.Table("offline_user_session").Metrics["hot_ratio"].V(); !strings.Contains(fs[2].Text, fmt.Sprintf("%.1f%% on offline_user_session", 100*hr)) {
		t.Errorf("HOT cost %q", fs[2].Text)
	}
}

func TestFindingsLeadEveryFormat(t *testing.T) {
	t.Parallel()
	res := fixture(t)
	first := FromResult(res).Findings[0].Text
	render := func(f string) string {
		var buf bytes.Buffer
		if err := Render(&buf, f, res, Options{}); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	before := func(out, a, b string) bool {
		i, j := strings.Index(out, a), strings.Index(out, b)
		return i >= 0 && j >= 0 && i < j
	}
	if out := render("table"); !before(out, "findings: coarse vs baseline", "│ METRIC") || !before(out, first, "│ METRIC") || !strings.Contains(out, "rule: ") {
		t.Error("the table does not show the findings under its header")
	}
	if out := render("markdown"); !before(out, "**Findings: coarse vs baseline", "| metric") || !before(out, "1. "+first, "- per variant") {
		t.Error("the markdown does not lead with the findings")
	}
	if out := render("html"); !before(out, `<h2 id="findings">`, "<h2>Charts</h2>") {
		t.Error("the html does not show the findings above the charts")
	}
	recs, err := csv.NewReader(strings.NewReader(render("csv"))).ReadAll()
	if err != nil || recs[1][3] != "finding" || recs[1][0] != "1" || recs[1][11] != first {
		t.Errorf("csv does not start with the findings: %v %v", recs[1], err)
	}
	var back struct {
		Findings []result.Finding `json:"findings"`
	}
	if err := json.Unmarshal([]byte(render("json")), &back); err != nil || len(back.Findings) == 0 || back.Findings[0].Text != first || back.Findings[0].Rule == "" {
		t.Errorf("json findings %+v %v", back.Findings, err)
	}
}

// compare --format json carries the change column the table shows, row for row.
func TestCompareJSONCarriesTheChangeColumn(t *testing.T) {
	t.Parallel()
	merged, err := Merge(split(t))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Render(&buf, "json", merged, Options{}); err != nil {
		t.Fatal(err)
	}
	var back result.Result
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	c := FromResult(merged)
	n := 0
	for _, sec := range c.Sections {
		for _, r := range sec.Rows {
			if r.Change == "" {
				continue
			}
			n++
			found := false
			for _, ch := range back.Changes {
				if ch.Level == sec.Kind && ch.Object == sec.Object && ch.Metric == r.Metric {
					found = ch.Text == r.Change && ch.Rule != "" && ch.From == "baseline" && ch.To == "coarse"
				}
			}
			if !found {
				t.Errorf("%s %s: the table's change %q is not in the JSON", sec.Title, r.Metric, r.Change)
			}
		}
	}
	if n == 0 || len(back.Changes) != n {
		t.Errorf("%d changes in the JSON, %d in the table", len(back.Changes), n)
	}
	// per-refresh values, as the table's change is computed from them
	for _, ch := range back.Changes {
		if ch.Metric == "log_bytes" && ch.Level == "database" {
			want := 100 * (*ch.After - *ch.Before) / *ch.Before
			if ch.Unit != "per refresh" || ch.Value == nil || math.Abs(*ch.Value-want) > 1e-9 {
				t.Errorf("log bytes change %+v", ch)
			}
		}
	}
}

// Every database-level metric is judged, not only the first with values:
// page splits from 0 to 50 per run are a finding beside the log's change,
// and rank after the headline ones.
func TestFindingsJudgeEveryDatabaseMetric(t *testing.T) {
	t.Parallel()
	r := twins(t)
	lb := r.Runs[0].Database["log_bytes"].V()
	setMetric(r.Runs[1].Database, "log_bytes", lb*1.5)
	setMetric(r.Runs[1].Database, "log_bytes_in_scope", r.Runs[0].Database["log_bytes_in_scope"].V()*1.5)
	setMetric(r.Runs[0].Database, "page_splits", 0)
	setMetric(r.Runs[1].Database, "page_splits", 50)
	fs := FromResult(r).Findings
	wal, splits := findingAbout(fs, "log_bytes", ""), findingAbout(fs, "page_splits", "")
	if wal == nil || splits == nil {
		t.Fatalf("log bytes %+v, page splits %+v: both changed beyond noise", wal, splits)
	}
	if !strings.Contains(splits.Text, "page splits") || splits.Rank <= wal.Rank {
		t.Errorf("page splits %q ranked %d, the log's change %d", splits.Text, splits.Rank, wal.Rank)
	}
}

// TestFindingsHeadlineInScope: the whole window's log fell 12.9% while the
// measured objects' fell 1.8% (other sessions wrote less): the out-of-scope
// share moved by 7.6 pt, beyond the noise rule, so the log finding carries
// the in-scope figure, where the log's finding ranked, and says why; with
// the share unchanged the whole window's figure stays the headline.
func TestFindingsHeadlineInScope(t *testing.T) {
	t.Parallel()
	r := twins(t)
	setMetric(r.Runs[0].Database, "log_bytes", 1e6)
	setMetric(r.Runs[0].Database, "log_bytes_in_scope", 6e5)
	setMetric(r.Runs[1].Database, "log_bytes", 871e3)
	setMetric(r.Runs[1].Database, "log_bytes_in_scope", 589.2e3)
	fs := FromResult(r).Findings
	if f := findingAbout(fs, "log_bytes", ""); f != nil {
		t.Errorf("the whole window's change is still a finding: %q", f.Text)
	}
	var in []result.Finding
	for _, f := range fs {
		if f.Metric == "log_bytes_in_scope" {
			in = append(in, f)
		}
	}
	if len(in) != 1 {
		t.Fatalf("%d in-scope log findings, want 1: %+v", len(in), in)
	}
	f := in[0]
	for _, want := range []string{"the measured objects' WAL per refresh: no change beyond noise (-1.8%, 40 B → 39.2 B)", "not the whole window's -12.9%", "from 40.0% to 32.4% of it"} {
		if !strings.Contains(f.Text, want) {
			t.Errorf("headline %q lacks %q", f.Text, want)
		}
	}
	if f.Rank != 1 || f.Change == nil || math.Abs(*f.Change+1.8) > 1e-9 || !strings.Contains(f.Rule, "out-of-scope share") {
		t.Errorf("rank %d, change %v, rule %q", f.Rank, f.Change, f.Rule)
	}
	// The measured objects wrote more while the window wrote less: stated as a change.
	setMetric(r.Runs[1].Database, "log_bytes_in_scope", 6.6e5)
	if f := findingAbout(FromResult(r).Findings, "log_bytes_in_scope", ""); f == nil || !strings.HasPrefix(f.Text, "the measured objects' WAL per refresh +10.0% (") {
		t.Errorf("in scope +10%% while the window fell: %+v", f)
	}
	// The same share in both: the whole window's change is the headline.
	setMetric(r.Runs[1].Database, "log_bytes_in_scope", 6e5*0.871)
	fs = FromResult(r).Findings
	if f := findingAbout(fs, "log_bytes", ""); f == nil || !strings.Contains(f.Text, "-12.9%") || strings.Contains(f.Text, "measured objects") {
		t.Errorf("with the out-of-scope share unchanged: %+v", f)
	}
}

// A comparison of results with different parameters says so in a field,
// whatever the workloads' names, and findings then do not treat its runs
// as the same work.
func TestMergeMarksMixedWorkloads(t *testing.T) {
	t.Parallel()
	in := split(t)
	same, err := Merge(in)
	if err != nil {
		t.Fatal(err)
	}
	if same.Workload.Mixed {
		t.Errorf("one workload with one set of parameters is marked mixed: %+v", same.Workload)
	}
	in = split(t)
	in[1].Result.Workload.Params = map[string]any{"seed": 99}
	mixed, err := Merge(in)
	if err != nil {
		t.Fatal(err)
	}
	if !mixed.Workload.Mixed || mixed.Workload.Name != in[0].Result.Workload.Name {
		t.Fatalf("different parameters under one name: %+v", mixed.Workload)
	}
	if ok, why := sameWork(mixed, &mixed.Runs[0], &mixed.Runs[1]); ok || !strings.Contains(why, "different workloads or parameters") {
		t.Errorf("sameWork of a mixed comparison: %v, %q", ok, why)
	}
	b, err := json.Marshal(mixed)
	if err != nil {
		t.Fatal(err)
	}
	var back result.Result
	if err := json.Unmarshal(b, &back); err != nil || !back.Workload.Mixed {
		t.Errorf("mixed does not survive json: %v %+v", err, back.Workload)
	}
}
