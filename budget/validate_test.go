package budget

import (
	"strings"
	"testing"
)

// Budgets that cannot mean what they say are refused by Parse, before
// anything connects, with the threshold that was probably meant.
func TestParseRefusesOutOfRangeRatiosAndSizesWithoutUnit(t *testing.T) {
	cases := map[string][]string{
		"hot_ratio>=90":            {"fraction from 0 to 1", "write 0.9", "90%"},
		"hot_ratio[jobs]>=95":      {"write 0.95"},
		"hot_ratio>=150%":          {"above 100%"},
		"hot_ratio>=-5":            {"out of range", "-0.05", "5 points"},
		"log_bytes/op<=+50":        {"a size needs its unit", "+50B", "+50%"},
		"log_bytes/op<=50":         {"a size needs its unit", "50B", "+50%"},
		"log_bytes_in_scope<=-100": {"a size needs its unit", "-100B", "-100%"},
		"size_bytes[t]<=+8000":     {"a size needs its unit"},
		"migration.log_bytes<=500": {"a size needs its unit", "500B"},
	}
	for in, wants := range cases {
		_, err := Parse(in)
		if err == nil {
			t.Errorf("Parse(%q): no error", in)
			continue
		}
		// check's acceptance reads "connect" or "refused" as a connection attempt
		if l := strings.ToLower(err.Error()); strings.Contains(l, "refused") || strings.Contains(l, "connect") {
			t.Errorf("Parse(%q) = %v: reads like a connection error", in, err)
		}
		for _, w := range wants {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("Parse(%q) = %v, want it to say %q", in, err, w)
			}
		}
	}
	for _, in := range []string{"hot_ratio>=1", "hot_ratio>=0.9", "hot_ratio>=100%", "hot_ratio>=-1", "hot_ratio<=+300%",
		"log_bytes<=+0", "log_bytes/op<=+50B", "log_bytes/op<=50KiB", "leaf_inserts/op<=+50", "leaf_inserts/op<=50", "index_entries/op[accounts]<=+0%"} {
		if _, err := Parse(in); err != nil {
			t.Errorf("Parse(%q): %v", in, err)
		}
	}
}

// The canonical form of a size keeps its unit, so it parses again.
func TestStringOfASizeParses(t *testing.T) {
	for _, in := range []string{"log_bytes/op<=2KiB", "log_bytes<+1MB", "size_bytes[t]<=-8KB", "log_bytes<=+0"} {
		b, err := Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		again, err := Parse(b.String())
		if err != nil {
			t.Fatalf("%q -> %q: %v", in, b.String(), err)
		}
		if again.Value != b.Value || again.Kind != b.Kind {
			t.Errorf("%q -> %q -> %+v", in, b.String(), again)
		}
	}
}
