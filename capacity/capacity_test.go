package capacity

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/result"
)

func TestParseRate(t *testing.T) {
	cases := []struct {
		in   string
		op   string
		want float64
	}{
		{"500/s", "", 500},
		{"30k/min", "", 500},
		{"1.8M/h", "", 500},
		{"43.2M/day", "", 500},
		{"refreshes=500/s", "refreshes", 500},
		{" logins = 20 / sec ", "logins", 20},
	}
	for _, c := range cases {
		r, err := ParseRate(c.in)
		if err != nil {
			t.Fatalf("ParseRate(%q): %v", c.in, err)
		}
		if r.Op != c.op || math.Abs(r.PerSecond-c.want) > 1e-9 {
			t.Errorf("ParseRate(%q) = %q %v, want %q %v", c.in, r.Op, r.PerSecond, c.op, c.want)
		}
	}
	for _, bad := range []string{"", "500", "500/fortnight", "-5/s", "0/s", "abc/s", "=5/s", "1e3/s", "NaN/s", "inf/s", "5k5/s", "a b=5/s"} {
		if _, err := ParseRate(bad); err == nil || !strings.Contains(err.Error(), "expected") {
			t.Errorf("ParseRate(%q): want an error naming the grammar, got %v", bad, err)
		}
	}
}

func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"500/s", "30k/min", "refreshes=500/s", "1.8M/h", "", "/", "=/", "5/", "0.0000001/day", "99999999999M/s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRate(s)
		if err != nil {
			return
		}
		if !(r.PerSecond > 0) || math.IsInf(r.PerSecond, 0) {
			t.Fatalf("ParseRate(%q) = %v: not a positive finite rate", s, r.PerSecond)
		}
	})
}

func TestCeilings(t *testing.T) {
	c, err := ResolveCeiling("azure-sql-hyperscale", 0)
	if err != nil || c.BytesPerSec != 100*MiB {
		t.Fatalf("hyperscale: %v %v", c.BytesPerSec, err)
	}
	c, _ = ResolveCeiling("azure-sql-hyperscale-premium", 0)
	if c.BytesPerSec != 150*MiB {
		t.Fatalf("premium: %v", c.BytesPerSec)
	}
	c, _ = ResolveCeiling("azure-sql-gp", 4)
	if c.BytesPerSec != 18*MiB {
		t.Fatalf("gp 4 vCores: %v", c.BytesPerSec/MiB)
	}
	c, _ = ResolveCeiling("azure-sql-gp", 16)
	if c.BytesPerSec != 36*MiB {
		t.Fatalf("gp 16 vCores is capped at 36 MiB/s: %v", c.BytesPerSec/MiB)
	}
	c, _ = ResolveCeiling("50MiB/s", 0)
	if c.BytesPerSec != 50*MiB || !c.UserSpecified {
		t.Fatalf("given: %+v", c)
	}
	if b, _ := ParseByteRate("36 MB/s"); b != 36e6 {
		t.Fatalf("MB/s: %v", b)
	}
	if _, err := ResolveCeiling("azure-sql-hyperscale", 4); err == nil {
		t.Fatal("--vcores on a fixed ceiling must be refused")
	}
	if _, err := ResolveCeiling("fast", 0); err == nil || !strings.Contains(err.Error(), "azure-sql-hyperscale") {
		t.Fatalf("unknown ceiling: %v", err)
	}
	if len(Ceilings()) != 4 {
		t.Fatalf("ceilings.json: %d entries", len(Ceilings()))
	}
}

// The fixture is a real default run on PostgreSQL 15 (reports/testdata).
func TestProjectFixture(t *testing.T) {
	res, err := result.Read("../reports/testdata/refresh_token_pg15.json")
	if err != nil {
		t.Fatal(err)
	}
	rate, _ := ParseRate("500/s")
	hs, _ := ResolveCeiling("azure-sql-hyperscale", 0)
	p, err := Project(res, rate, []Ceiling{hs})
	if err != nil {
		t.Fatal(err)
	}
	base, coarse := p.Variants[0], p.Variants[1]
	// baseline: 23,017,964 bytes of the workload's own WAL records (pg_walinspect)
	// for 15,000 refreshes; 23,484,848 for the whole cluster (LSN difference).
	wantBps := 23017964.0 / 15000 * 500
	if math.Abs(base.LogBytes.PerSecond-wantBps) > 1e-6 || base.LogBytes.Exactness != result.Exact {
		t.Fatalf("baseline log B/s %v, want %v", base.LogBytes.PerSecond, wantBps)
	}
	if got := base.LogGBPerDay(); math.Abs(got-wantBps*86400/1e9) > 1e-9 || math.Abs(got-66.29) > 0.01 {
		t.Fatalf("baseline GB/day %v", got)
	}
	if got := base.ClusterLog.PerSecond * Day / GB; math.Abs(got-23484848.0/15000*500*86400/1e9) > 1e-9 {
		t.Fatalf("baseline whole-cluster GB/day %v", got)
	}
	if got := coarse.LogGBPerDay(); math.Abs(got-14000040.0/15000*500*86400/1e9) > 1e-9 {
		t.Fatalf("coarse GB/day %v", got)
	}
	// leaf inserts: 5 indexes x 15,000 (1,500 inserts + 13,500 non-HOT updates)
	// + 5 x 1,500 over 15,000 refreshes; coarse 4 x 1,500 (+ the broker index,
	// 0) + 4 x 1,500.
	if got := base.LeafInserts.PerSecond; math.Abs(got-(5*15000+5*1500)/15000.0*500) > 1e-9 {
		t.Fatalf("baseline leaf inserts/s %v", got)
	}
	if got := coarse.LeafInserts.PerSecond; math.Abs(got-(4*1500+4*1500)/15000.0*500) > 1e-9 {
		t.Fatalf("coarse leaf inserts/s %v", got)
	}
	if got := base.RowsChanged.PerSecond; math.Abs(got-1010) > 1e-9 {
		t.Fatalf("rows changed/s %v", got)
	}
	if base.Mix["logins"] != 50 || base.Mix["logouts"] != 5 {
		t.Fatalf("mix %v", base.Mix)
	}
	h := base.Headroom[0]
	if math.Abs(h.MaxRate-100*MiB/(23017964.0/15000)) > 1e-6 || !h.WithinBudget {
		t.Fatalf("headroom %+v", h)
	}
	if len(p.Savings) != 1 || math.Abs(p.Savings[0].GBPerDay-(base.LogGBPerDay()-coarse.LogGBPerDay())) > 1e-9 {
		t.Fatalf("savings %+v", p.Savings)
	}
	var buf bytes.Buffer
	if err := Render(&buf, "table", res.Server.Dialect, p); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"66.3 GB/day", "40.3 GB/day", "67.6 GB/day", "41.4 GB/day", "WAL rate, MiB/s (2^20 B/s)", "at 500 refreshes/s", "saves 26.0 GB/day of WAL", "MB = 10^6 bytes", "50 logins/s", "azure-sql-hyperscale 100 MiB/s"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan output lacks %q:\n%s", want, out)
		}
	}
	if _, err := Project(res, Rate{Op: "nope", PerSecond: 1}, nil); err == nil || !strings.Contains(err.Error(), "refreshes") {
		t.Fatalf("unknown operation: %v", err)
	}
}

// A measure without --operations has no operation to scale: plan scales per
// row changed, says so, and suggests --operations.
func TestProjectPerRowChanged(t *testing.T) {
	res, err := result.Read("../reports/testdata/refresh_token_pg15.json")
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.Runs {
		res.Runs[i].Operations, res.Runs[i].MainOperation = map[string]int64{}, ""
	}
	for _, text := range []string{"2000/s", "rows=2000/s"} {
		rate, _ := ParseRate(text)
		p, err := Project(res, rate, nil)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		base := p.Variants[0]
		var rows float64
		for _, tb := range res.Runs[0].Tables {
			for _, m := range []string{"rows_inserted", "rows_updated", "rows_deleted"} {
				rows += tb.Metrics[m].V()
			}
		}
		want := res.Runs[0].Database["log_bytes_in_scope"].V() / rows * 2000
		if !p.PerRow || base.Op != "rows changed" || math.Abs(base.LogBytes.PerSecond-want) > 1e-6 || math.Abs(base.RowsChanged.PerSecond-2000) > 1e-9 {
			t.Fatalf("%s: per row %v op %q log %v (want %v) rows/s %v", text, p.PerRow, base.Op, base.LogBytes.PerSecond, want, base.RowsChanged.PerSecond)
		}
		all := strings.Join(p.Assumptions, "\n")
		for _, want := range []string{"the rate counts rows changed", "--operations N"} {
			if !strings.Contains(all, want) {
				t.Errorf("%s: assumptions lack %q:\n%s", text, want, all)
			}
		}
		if strings.Contains(all, "mix (at") {
			t.Errorf("an empty mix is not an assumption:\n%s", all)
		}
	}
	rate, _ := ParseRate("operations=500/s")
	if _, err := Project(res, rate, nil); err == nil || !strings.Contains(err.Error(), "rows=2000/s") {
		t.Errorf("an operation the result has no count of: %v", err)
	}
	// rows= works on a result with operations too, and keeps their mix.
	full, _ := result.Read("../reports/testdata/refresh_token_pg15.json")
	rate, _ = ParseRate("rows=1110/s")
	p, err := Project(full, rate, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The mix follows the fixture's own rows per refresh.
	wantRefreshes := 1110 * float64(full.Runs[0].Operations["refreshes"]) / float64(p.Variants[0].Measured)
	if err != nil || math.Abs(p.Variants[0].Mix["refreshes"]-wantRefreshes) > 1e-9 || strings.Contains(strings.Join(p.Assumptions, " "), "no operation count") {
		t.Fatalf("rows= on a run with operations: %v %+v", err, p)
	}
	// A server that counts rows only server-wide (MariaDB) says so.
	maria, _ := result.Read("../reports/testdata/measure_mariadb.json")
	rate, _ = ParseRate("rows=100/s")
	p, err = Project(maria, rate, nil)
	if err != nil || !p.Variants[0].RowsChanged.OK || !strings.Contains(strings.Join(p.Assumptions, " "), "server-wide") {
		t.Fatalf("MariaDB per row: %v %+v", err, p)
	}
}

func TestParseRates(t *testing.T) {
	rs, err := ParseRates("100/s,500/s, 2k/s")
	if err != nil || len(rs) != 3 || rs[2].PerSecond != 2000 {
		t.Fatalf("%+v %v", rs, err)
	}
	for bad, want := range map[string]string{
		"1,000/s":                             "1000/s or 1k/s",
		"100/s,logins=5/s":                    "same operation",
		"100/s,,5/s":                          "empty rate",
		"1/s,2/s,3/s,4/s,5/s,6/s,7/s,8/s,9/s": "at most 8",
		"100/s,-5/s":                          "positive",
	} {
		if _, err := ParseRates(bad); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseRates(%q) = %v, want an error naming %q", bad, err, want)
		}
	}
}

func TestProjectSeveralRates(t *testing.T) {
	res, _ := result.Read("../reports/testdata/refresh_token_pg15.json")
	rates, _ := ParseRates("100/s,500/s,2000/s")
	c, _ := ResolveCeiling("1MiB/s", 0)
	p, err := ProjectRates(res, rates, []Ceiling{c})
	if err != nil || len(p.AtRates) != 3 {
		t.Fatalf("%v %+v", err, p)
	}
	perOp := res.Runs[0].Database["log_bytes_in_scope"].V() / 15000
	for i, r := range []float64{100, 500, 2000} {
		v := p.AtRates[i].Variants[0]
		if math.Abs(v.LogBytes.PerSecond-perOp*r) > 1e-6 || v.Headroom[0].WithinBudget != (perOp*r <= MiB) {
			t.Errorf("at %v/s: %v B/s, within %v", r, v.LogBytes.PerSecond, v.Headroom[0].WithinBudget)
		}
	}
	var buf bytes.Buffer
	if err := Render(&buf, "table", "postgres", p); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	reached := fmt.Sprintf("%s refreshes/s", commasF(math.Round(MiB/perOp), 0))
	for _, want := range []string{"baseline @ 100/s", "baseline @ 2,000/s", "coarse @ 500/s", "at 100, 500, 2000 refreshes/s", "OVER", "reached at", reached, "at 2000 refreshes/s"} {
		if !strings.Contains(out, want) {
			t.Errorf("several rates: output lacks %q:\n%s", want, out)
		}
	}
}

// Numbers no writeamp run produces are refused, naming what is wrong.
func TestProjectRefusesGarbage(t *testing.T) {
	rate, _ := ParseRate("500/s")
	for name, spoil := range map[string]func(*result.Result){
		"operations.refreshes": func(r *result.Result) { r.Runs[0].Operations["refreshes"] = -15000 },
		"log_bytes_in_scope": func(r *result.Result) {
			m := r.Runs[1].Database["log_bytes_in_scope"]
			v := -1.0
			m.Value = &v
			r.Runs[1].Database["log_bytes_in_scope"] = m
		},
		"indexes[constraint_offl_cl_ses_pk3].leaf_inserts": func(r *result.Result) {
			m := r.Runs[0].Indexes[0].Metrics["leaf_inserts"]
			v := -3.0
			m.Value = &v
			r.Runs[0].Indexes[0].Metrics["leaf_inserts"] = m
		},
		"elapsed_seconds": func(r *result.Result) { r.Runs[0].ElapsedSeconds = -1 },
	} {
		res, _ := result.Read("../reports/testdata/refresh_token_pg15.json")
		spoil(res)
		if _, err := Project(res, rate, nil); err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "not a result writeamp wrote") {
			t.Errorf("%s: %v", name, err)
		}
	}
	res, _ := result.Read("../reports/testdata/refresh_token_pg15.json")
	huge, _ := ParseRate("99999999999M/s")
	m := res.Runs[0].Database["log_bytes_in_scope"]
	v := 1e300
	m.Value = &v
	res.Runs[0].Database["log_bytes_in_scope"] = m
	if _, err := Project(res, huge, nil); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("overflow: %v", err)
	}
}

func FuzzParseRates(f *testing.F) {
	for _, s := range []string{"100/s,500/s", "1,000/s", "rows=5/s,rows=6/s", ",", "5/s,", "a=1/s,b=2/s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rs, err := ParseRates(s)
		if err != nil {
			return
		}
		if len(rs) == 0 || len(rs) > maxRates {
			t.Fatalf("ParseRates(%q): %d rates", s, len(rs))
		}
		for _, r := range rs {
			if !(r.PerSecond > 0) || math.IsInf(r.PerSecond, 0) || !strings.EqualFold(r.Op, rs[0].Op) {
				t.Fatalf("ParseRates(%q) = %+v", s, rs)
			}
		}
	})
}

// The leaf-insert figure keeps its key and its place in a variant's JSON
// (the golden plans hold the order) and reads back.
func TestVariantPlanJSONRoundTrip(t *testing.T) {
	v := VariantPlan{Variant: "coarse", Op: "refresh", LogBytes: Figure{PerSecond: 1, OK: true},
		LeafInserts: Figure{PerOp: 2, PerSecond: 1000, Exactness: result.Exact, Source: "sum", OK: true}, RowsChanged: Figure{PerSecond: 3}}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	li, rc := bytes.Index(b, []byte(`"`+result.LeafInserts.Name+`":{"per_operation":2,`)), bytes.Index(b, []byte(`"rows_changed":`))
	if li < 0 || rc < li || bytes.Index(b, []byte(`"log_bytes":`)) > li {
		t.Errorf("leaf inserts not between log_bytes and rows_changed: %s", b)
	}
	var back VariantPlan
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.LeafInserts != v.LeafInserts || back.Variant != "coarse" || back.RowsChanged.PerSecond != 3 {
		t.Errorf("read back %+v from %s", back, b)
	}
}
