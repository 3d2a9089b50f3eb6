package refreshtoken

import (
	"encoding/binary"
	"runtime"
	"testing"

	"github.com/writeamp/writeamp/internal/testing/race"
)

// The job's model allocates in proportion to the sessions it is given, not
// to sessions times batches: it filtered the live sessions into a new slice
// for every batch and kept each pass's eligible ids in a map, 62 KB per
// session here (3.1 GB for these 50,000; the copies were most of a
// 150,000-login run's peak heap), where it now allocates 121 bytes (169
// while it filtered a copy of the sessions). Not
// parallel: the figure is the process's allocation.
func TestJobModelAllocatesInProportionToItsSessions(t *testing.T) {
	race.SkipHeapMeasure(t)
	p := DefaultParams()
	p.ExpirationBatch = 100
	w := New(p)
	w.variant = "baseline"
	const n = 50000
	live := make([]liveSession, n)
	for i := range live {
		// Four idle ages, so four runs each delete a quarter in batches.
		var id sid
		binary.BigEndian.PutUint32(id[:], uint32(i))
		live[i] = liveSession{id: id, createdOn: Epoch, lastRefresh: Epoch + int64(i%4)*900}
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

// What the job's model is given, a session left at the scenario's end or
// preloaded, is 40 bytes live: its id as a string took 64 more (a
// 16-byte header and 48 bytes of text), 13 MB of a 150,000-login run's
// peak. Not parallel: the figure is the process's heap.
func TestModelledSessionsAreFortyBytesLive(t *testing.T) {
	p := DefaultParams()
	p.Preload = 50000
	w := New(p)
	w.ensurePlan()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	live := w.preloadSessions()
	runtime.GC()
	runtime.ReadMemStats(&after)
	perSession := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(len(live))
	runtime.KeepAlive(live)
	if len(live) != p.Preload {
		t.Fatalf("%d preloaded sessions, want %d", len(live), p.Preload)
	}
	if perSession > 44 {
		t.Errorf("a modelled session takes %.1f bytes of live heap, want 40", perSession)
	}
	t.Logf("%.1f bytes of live heap per modelled session", perSession)
	// Each id still reads back as the plan wrote it.
	plan := w.ensurePlan()
	for _, i := range []int{0, 1, p.Preload - 1} {
		if got, want := live[i].id.String(), plan.sessionID(p.Logins+i); got != want {
			t.Errorf("preloaded session %d: id %s, the plan's %s", i, got, want)
		}
	}
}
