package refreshtoken

import (
	"fmt"
	"runtime"
	"testing"
)

// The job's model allocates in proportion to the sessions it is given, not
// to sessions times batches: it filtered the live sessions into a new slice
// for every batch and kept each pass's eligible ids in a map, 62 KB per
// session here (3.1 GB for these 50,000; the copies were most of a
// 150,000-login run's peak heap), where it now allocates 121 bytes (169
// while it filtered a copy of the sessions). Not
// parallel: the figure is the process's allocation.
func TestJobModelAllocatesInProportionToItsSessions(t *testing.T) {
	p := DefaultParams()
	p.ExpirationBatch = 100
	w := New(p)
	w.variant = "baseline"
	const n = 50000
	live := make([]liveSession, n)
	for i := range live {
		// Four idle ages, so four runs each delete a quarter in batches.
		live[i] = liveSession{id: fmt.Sprintf("%036d", i), createdOn: Epoch, lastRefresh: Epoch + int64(i%4)*900}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	jp := w.planJob(live, 0)
	runtime.ReadMemStats(&after)
	if jp.deleted != n {
		t.Fatalf("the model deleted %d of %d sessions", jp.deleted, n)
	}
	// The batches' ids and each pass's eligible list (16 bytes an id
	// each), with append's slack: the sessions are filtered in place.
	perSession := float64(after.TotalAlloc-before.TotalAlloc) / n
	if perSession > 150 {
		t.Errorf("the job's model allocated %.0f bytes per session (%d batches)", perSession, len(jp.batches))
	}
	t.Logf("%.0f bytes allocated per session, %d batches", perSession, len(jp.batches))
}
