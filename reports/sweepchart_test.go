package reports

import (
	"math"
	"strings"
	"testing"

	"github.com/writeamp/writeamp/result"
)

func share(v float64) result.Metric {
	return result.Metric{Value: &v, Exactness: result.Approx, Source: "pg_stat_activity sampled every 10ms: 100 samples"}
}

// A sampled share rarer than 1% in every run stays out of the tables (the
// json keeps it); the sweep chart draws, per variant, the waits that reached
// 5% at some level, at every level, largest first.
func TestWaitSharesInTablesAndTheSweepChart(t *testing.T) {
	t.Parallel()
	run := func(variant string, level int, lw, cpu, rare float64) result.Run {
		return result.Run{Variant: variant, Concurrency: level, Label: variant, Throughput: float64(100 * level), Database: map[string]result.Metric{
			"wait_samples": share(100), "wait_share.LWLock.WALWrite": share(lw), "wait_share.CPU.running": share(cpu), "wait_share.IO.DataFileExtend": share(rare)}}
	}
	res := &result.Result{SchemaVersion: result.SchemaVersion, Runs: []result.Run{
		run("coarse", 1, 0.02, 0.97, 0.005), run("coarse", 8, 0.80, 0.19, 0.005), run("coarse", 32, 0.90, 0.09, 0.005)}}
	c := FromResult(res)
	rows := map[string]bool{}
	for _, r := range c.Sections[0].Rows {
		rows[r.Metric] = true
	}
	if !rows["wait_share.LWLock.WALWrite"] || !rows["wait_share.CPU.running"] || rows["wait_share.IO.DataFileExtend"] {
		t.Errorf("database rows %v: want the two large shares, not the one under 1%%", rows)
	}
	charts := sweepCharts(c)
	if len(charts) != 1 {
		t.Fatalf("%d charts, want one for coarse", len(charts))
	}
	ch := charts[0]
	if strings.Join(ch.Waits, ",") != "CPU.running,LWLock.WALWrite" || len(ch.Levels) != 3 || ch.Levels[2] != 32 {
		t.Fatalf("waits %v at levels %v", ch.Waits, ch.Levels)
	}
	if got := ch.Share[1]; math.Abs(got[0]-0.02) > 1e-12 || math.Abs(got[2]-0.90) > 1e-12 {
		t.Errorf("WALWrite by level %v", got)
	}
	if svg := string(ch.SVG()); strings.Count(svg, "<circle") != 6 || !strings.Contains(svg, "LWLock.WALWrite at c=32: 90.0% of active time") {
		t.Errorf("svg:\n%s", svg)
	}
}
