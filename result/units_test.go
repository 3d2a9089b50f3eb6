package result

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFormatBytes(t *testing.T) {
	for v, want := range map[float64]string{
		0: "0 B", 30: "30 B", 959.2: "959.2 B", 1023: "1,023 B", 1024: "1.00 KiB", 1565.6: "1.53 KiB",
		800 * 1024: "800 KiB", 1_024_000: "0.98 MiB", 23_484_848: "22.4 MiB", 3 << 30: "3.00 GiB", -8192: "-8.00 KiB",
	} {
		if got := FormatBytes(v); got != want {
			t.Errorf("FormatBytes(%v) = %q, want %q", v, got, want)
		}
	}
	for v, want := range map[float64]string{
		30: "30 B", 5143: "5.02 KiB (5,143 B)", 23_484_848: "22.4 MiB (23,484,848 B)", 237_312.5: "232 KiB (237,312.5 B)",
	} {
		if got := FormatBytesExact(v); got != want {
			t.Errorf("FormatBytesExact(%v) = %q, want %q", v, got, want)
		}
	}
	if a, b := FormatBytesAt(1565.6, 1, 1), FormatBytesAt(1570, 1, 1); a != "1.529 KiB" || b != "1.533 KiB" {
		t.Errorf("extra digits: %q %q", a, b)
	}
}

// Every unit of the catalogue is written one way, totals and per operation.
func TestFormatByUnit(t *testing.T) {
	cases := []struct {
		name      string
		v         float64
		total, pu string
	}{
		{"log_bytes", 23_484_848, "22.4 MiB (23,484,848 B)", "22.4 MiB"},
		{"log_bytes", 1565.6, "1.53 KiB (1,565.6 B)", "1.53 KiB"},
		{"fpi_bytes", 0.34, "0.3 B", "0.3 B"},
		{"leaf_inserts", 15000, "15,000", "15,000"},
		{"leaf_inserts", 0.1, "0.10", "0.100"},
		{"hot_ratio", 0.992, "99.2%", "99.2%"},
		{"page_latch_wait_ms", 1234, "1,234 ms", "1,234 ms"},
		{"waits.writelog_ms", 2.5, "2.50 ms", "2.500 ms"},
		{"size_pages", 12, "12", "12.000"},
		{"unknown_thing", 7, "7", "7.000"},
	}
	for _, c := range cases {
		if got := FormatTotal(c.name, c.v); got != c.total {
			t.Errorf("FormatTotal(%s, %v) = %q, want %q", c.name, c.v, got, c.total)
		}
		if got := FormatPerUnit(c.name, c.v); got != c.pu {
			t.Errorf("FormatPerUnit(%s, %v) = %q, want %q", c.name, c.v, got, c.pu)
		}
	}
}

// ParseBytes reads humanize's units, keeps fractions of a byte, and refuses
// what a reader could take for something else.
func TestParseBytes(t *testing.T) {
	for in, want := range map[string]float64{
		"2KiB": 2048, "2 KiB": 2048, "2kib": 2048, "36 MB": 36e6, "1kB": 1000, "1KB": 1000, "1.5GiB": 1.5 * (1 << 30),
		"100.5B": 100.5, "1TiB": 1 << 40, "2PB": 2e15, "1,024 KiB": 1 << 20, "0.5 B": 0.5,
	} {
		got, err := ParseBytes(in)
		if err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, why := range map[string]string{
		"2k": "unknown byte unit", "2Mi": "unknown byte unit", "2": "unknown byte unit", "5 parsecs": "unknown byte unit",
		"KiB": "cannot read", "": "cannot read", "1.2.3KiB": "cannot read", "-5KiB": "cannot read", "1e3KiB": "unknown byte unit",
		"1" + strings.Repeat("0", 300) + "EiB": "out of range",
	} {
		if _, err := ParseBytes(in); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("ParseBytes(%q) = %v, want an error saying %q", in, err, why)
		}
	}
	if _, err := ByteMultiplier("kb"); err != nil {
		t.Error(err)
	}
	if m, _ := ByteMultiplier("EiB"); m != math.Pow(2, 60) {
		t.Errorf("EiB = %v", m)
	}
}

func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"2KiB", "36 MB", "1,024 KiB", "0.5 B", "", "k", "1e9B", ",,,B", ".B"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseBytes(s)
		if err != nil {
			return
		}
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("ParseBytes(%q) = %v", s, v)
		}
	})
}

// The "Units" section of docs/concepts.md shows what the formatters write
// and what ParseBytes reads: each example there is checked here.
func TestDocsUnits(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "concepts.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "### Units\n")
	if !ok {
		t.Fatal("docs/concepts.md has no Units section")
	}
	sec, _, _ = strings.Cut(sec, "\n### ")
	for want, got := range map[string]string{
		"959.2 B": FormatBytes(959.2), "1.53 KiB": FormatBytes(1565.6), "22.4 MiB": FormatBytes(23_484_848),
		"22.4 MiB (23,484,848 B)": FormatTotal("log_bytes", 23_484_848), "15,000": FormatTotal("leaf_inserts", 15000),
		"0.100": FormatPerUnit("leaf_inserts", 0.1), "99.2%": FormatTotal("hot_ratio", 0.992),
		"page latch wait time 1,234 ms": info("page_latch_wait_ms").Label + " " + FormatTotal("page_latch_wait_ms", 1234),
	} {
		if got != want || !strings.Contains(sec, "`"+want+"`") {
			t.Errorf("docs/concepts.md shows `%s`; the formatter writes %q", want, got)
		}
	}
	for _, in := range []string{"1,024 KiB", "50MiB", "100.5B", "2KiB"} {
		if _, err := ParseBytes(in); err != nil || !strings.Contains(sec, in) {
			t.Errorf("docs/concepts.md accepts %s: %v", in, err)
		}
	}
	for _, in := range []string{"2k", "5Mi"} {
		if _, err := ParseBytes(in); err == nil || !strings.Contains(sec, "`"+in+"`") {
			t.Errorf("docs/concepts.md refuses %s: it parsed", in)
		}
	}
}

func info(name string) Info { i, _ := Lookup(name); return i }
