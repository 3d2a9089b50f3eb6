package reports

import (
	"bytes"
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/writeamp/writeamp/internal/testing/testenv"
	"github.com/writeamp/writeamp/result"
)

// synthetic is the fixture with its runs' indexes replaced by n indexes (20
// per table), each carrying the metrics of the fixture's first index: the
// shape of a snapshot diff of a large catalog.
func synthetic(t testing.TB, n int) *result.Result {
	r := fixture(t.(*testing.T))
	for ri := range r.Runs {
		run := &r.Runs[ri]
		proto := run.Indexes[0]
		tproto := run.Tables[0]
		run.Indexes, run.Tables = make([]result.Object, 0, n), make([]result.Object, 0, n/20)
		for i := 0; i < n; i++ {
			ms := make(map[string]result.Metric, len(proto.Metrics))
			for k, m := range proto.Metrics {
				if m.Value != nil {
					m = result.New(m.V()+float64(i%97+ri), m.Exactness, m.Source)
				}
				ms[k] = m
			}
			tab := fmt.Sprintf("t%05d", i/20)
			if i%20 == 0 {
				tm := make(map[string]result.Metric, len(tproto.Metrics))
				for k, m := range tproto.Metrics {
					tm[k] = m
				}
				run.Tables = append(run.Tables, result.Object{Name: tab, Schema: "public", Metrics: tm})
			}
			run.Indexes = append(run.Indexes, result.Object{Name: fmt.Sprintf("%s_i%02d", tab, i%20), Schema: "public", Table: tab, Metrics: ms})
		}
	}
	return r
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cost renders r in format the fastest of two times: CPU time (not wall
// time, which other processes on the machine stretch) and bytes allocated.
func cost(t *testing.T, r *result.Result, format string) (time.Duration, uint64) {
	best, alloc := time.Duration(1<<62), uint64(0)
	for i := 0; i < 2; i++ {
		runtime.GC()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		c0 := cpuTime()
		if err := Render(&bytes.Buffer{}, format, r, Options{}); err != nil {
			t.Fatal(err)
		}
		best = min(best, cpuTime()-c0)
		runtime.ReadMemStats(&m1)
		alloc = m1.TotalAlloc - m0.TotalAlloc
	}
	return best, alloc
}

// Reports are linear in the objects of a result: eight times the indexes
// cost about eight times the CPU and allocations. A lookup by name per
// object (what made a 50k-index diff take 31 s) makes the CPU ratio ~64.
func TestReportsScaleLinearlyInIndexes(t *testing.T) {
	testenv.Heavy(t, "renders results of 1,000 and 8,000 indexes")
	// Not parallel: it reads the process's CPU time and heap.
	if testing.Short() {
		t.Skip("renders 9,000 indexes in every format")
	}
	small, large := synthetic(t, 1000), synthetic(t, 8000)
	for _, f := range Formats {
		cs, as := cost(t, small, f)
		cl, al := cost(t, large, f)
		ratio, aratio := cl.Seconds()/max(cs.Seconds(), 1e-3), float64(al)/float64(as)
		t.Logf("%s: 1000 indexes %v %d MB, 8000 %v %d MB: CPU ×%.1f, allocations ×%.1f", f, cs, as>>20, cl, al>>20, ratio, aratio)
		if ratio > 24 {
			t.Errorf("%s: 8× the indexes took %.1f× the CPU time (linear is ~8, quadratic ~64)", f, ratio)
		}
		if aratio > 12 {
			t.Errorf("%s: 8× the indexes allocated %.1f× the bytes", f, aratio)
		}
	}
}
