package measure

import (
	"strings"
	"testing"

	"github.com/writeamp/writeamp/result"
)

func TestWarmupSettlesOnTwoRoundsInARow(t *testing.T) {
	r := func(perOp ...float64) []warmRound {
		var out []warmRound
		for _, p := range perOp {
			out = append(out, warmRound{ops: 100, bytes: 100 * p})
		}
		return out
	}
	for _, c := range []struct {
		rounds []warmRound
		want   bool
	}{
		{r(900), false},             // one round compares with nothing
		{r(2000, 900), false},       // the images after the checkpoint still falling
		{r(2000, 900, 850), true},   // 850 is within 10% of 900
		{r(900, 800), false},        // 11% apart
		{r(800, 880), true},         // exactly 9.1% of the larger
		{r(0, 0), true},             // a workload that writes no log is settled
		{r(1000, 1000*0.9), true},   // 10% is within
		{r(1000, 1000*0.89), false}, // 11% is not
	} {
		if got := settledAt(c.rounds, 0.10); got != c.want {
			t.Errorf("%v: settled %v, want %v", c.rounds, got, c.want)
		}
	}
}

func TestWarmupRecordsItsRounds(t *testing.T) {
	run := &result.Run{Database: map[string]result.Metric{}}
	wu := &warmup{repeated: true, tol: 0.1, max: 3, logSrc: "pg_current_wal_insert_lsn()",
		rounds: []warmRound{{ops: 10, bytes: 30000}, {ops: 10, bytes: 20000}, {ops: 10, bytes: 15000}}}
	wu.record(run)
	if m := run.Database["warmup_rounds"]; m.V() != 3 || m.Exactness != result.Exact || !strings.Contains(m.Source, "3000, 2000, 1500 B/op") {
		t.Errorf("warmup_rounds %+v", m)
	}
	if m := run.Database["warmup_log_bytes_per_operation"]; m.V() != 1500 || m.Exactness != result.Derived {
		t.Errorf("warmup_log_bytes_per_operation %+v", m)
	}
	if m := run.Database["warmup_settled"]; !m.OK() || m.V() != 0 {
		t.Errorf("warmup_settled %+v", m)
	}
	if len(run.Warnings) != 1 || !strings.Contains(run.Warnings[0], "did not settle within 10% in 3 rounds") {
		t.Errorf("warnings %q", run.Warnings)
	}
	// A warm-up that ran once (no --warmup-until-stable) adds nothing.
	once := &result.Run{Database: map[string]result.Metric{}}
	(*warmup)(nil).record(once)
	if len(once.Database) != 0 || len(once.Warnings) != 0 {
		t.Errorf("a single warm-up recorded %+v", once)
	}
}
