package capacity

import (
	"strings"
	"testing"

	"github.com/writeamp/writeamp/result"
)

func TestFPIAssumptionSaysWhichWindow(t *testing.T) {
	for cp, want := range map[string]string{"": "right after a CHECKPOINT", "before": "the worst case", "steady": "steady-state window", "none": "no CHECKPOINT before it"} {
		res := &result.Result{Workload: result.Workload{Params: map[string]any{"checkpoint": cp}}}
		got := fpiAssumption(res, "coarse 40.0%")
		if !strings.Contains(got, want) || !strings.Contains(got, "checkpoint_timeout 5min and max_wal_size 1GB assumed") || !strings.Contains(got, "coarse 40.0%") {
			t.Errorf("%q: %s", cp, got)
		}
	}
}
