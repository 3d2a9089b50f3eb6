package capacity

import (
	"bytes"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/internal/termwidth"
	"github.com/writeamp/writeamp/internal/testing/golden"
	"github.com/writeamp/writeamp/result"
)

// The plan of the PostgreSQL 15 fixture in every format plan writes, one
// rate and three, against a published and a given ceiling (go test -update
// rewrites testdata/*.golden).
func TestGoldenPlan(t *testing.T) {
	res, err := result.Read("../reports/testdata/refresh_token_pg15.json")
	if err != nil {
		t.Fatal(err)
	}
	hs, _ := ResolveCeiling("azure-sql-hyperscale", 0)
	given, _ := ResolveCeiling("1MiB/s", 0)
	for name, rates := range map[string]string{"plan_pg15_500": "500/s", "plan_pg15_rates": "100/s,500/s,2000/s"} {
		rs, err := ParseRates(rates)
		if err != nil {
			t.Fatal(err)
		}
		p, err := ProjectRates(res, rs, []Ceiling{hs, given})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"table", "markdown", "json"} {
			var buf bytes.Buffer
			if err := Render(&buf, f, "postgres", p); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, name+"."+f+".golden", buf.Bytes())
		}
	}
}

// --ceiling's amount is read by go-humanize like --budget's: its byte units
// (TB and beyond too, commas as humanize allows them), not its bare prefixes.
func TestParseByteRateUnits(t *testing.T) {
	for in, want := range map[string]float64{
		"50MiB/s": 50 * MiB, "36 MB/s": 36e6, "1GiB/min": GiB / 60.0, "1,024 KiB/s": MiB, "1TiB/h": (1 << 40) / 3600.0, "0.5 B/s": 0.5,
	} {
		if got, err := ParseByteRate(in); err != nil || math.Abs(got-want) > 1e-9 {
			t.Errorf("ParseByteRate(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, why := range map[string]string{
		"50k/s": "unknown byte unit", "50/s": "unknown byte unit", "0MiB/s": "positive", "MiB/s": "cannot read",
		"50MiB": "missing /s", "50MiB/week": "unknown time unit", "-5MiB/s": "cannot read",
	} {
		if _, err := ParseByteRate(in); err == nil || !strings.Contains(err.Error(), why) || !strings.Contains(err.Error(), "--ceiling") {
			t.Errorf("ParseByteRate(%q) = %v, want an error saying %q", in, err, why)
		}
	}
}

func FuzzParseByteRate(f *testing.F) {
	for _, s := range []string{"50MiB/s", "36 MB/s", "1,024 KiB/min", "/", "1e9B/s", "NaNMiB/s", "0.0000001B/day"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseByteRate(s)
		if err != nil {
			return
		}
		if !(v > 0) || math.IsInf(v, 0) {
			t.Fatalf("ParseByteRate(%q) = %v: not a positive finite rate", s, v)
		}
	})
}

// plan's table fits the terminal: at 80, 100 and 120 columns no line is
// wider, and every figure of the unbounded plan is still there.
func TestPlanFitsTheWidth(t *testing.T) {
	res, err := result.Read("../reports/testdata/refresh_token_pg15.json")
	if err != nil {
		t.Fatal(err)
	}
	hs, _ := ResolveCeiling("azure-sql-hyperscale", 0)
	rs, _ := ParseRates("100/s,500/s,2000/s")
	p, err := ProjectRates(res, rs, []Ceiling{hs})
	if err != nil {
		t.Fatal(err)
	}
	var full bytes.Buffer
	if err := Render(&full, "table", "postgres", p); err != nil {
		t.Fatal(err)
	}
	if termwidth.Widest(full.String()) <= 80 {
		t.Fatalf("the unbounded plan is only %d wide: the test fits nothing", termwidth.Widest(full.String()))
	}
	figures := regexp.MustCompile(`[0-9][0-9,.]*[0-9]`).FindAllString(full.String(), -1)
	for _, width := range []int{80, 100, 120} {
		var buf bytes.Buffer
		if err := RenderWidth(&buf, "table", "postgres", p, width); err != nil {
			t.Fatal(err)
		}
		for i, l := range strings.Split(buf.String(), "\n") {
			if termwidth.Width(l) > width {
				t.Errorf("at %d columns line %d is %d wide: %q", width, i+1, termwidth.Width(l), l)
			}
		}
		flat := strings.Join(strings.Fields(buf.String()), " ")
		for _, f := range figures {
			if !strings.Contains(flat, f) {
				t.Errorf("at %d columns the figure %s is lost", width, f)
			}
		}
	}
}
