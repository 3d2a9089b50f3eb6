package heappeak

import "testing"

var sink [][]byte

// TestPeakSeesAnAllocationThatWasFreed holds 64 MiB for longer than a few
// samples, frees it, and requires the peak to have seen it after the heap
// went back down.
func TestPeakSeesAnAllocationThatWasFreed(t *testing.T) {
	s := Start()
	for range 64 {
		sink = append(sink, make([]byte, 1<<20))
	}
	for i := range sink {
		for j := 0; j < len(sink[i]); j += 4096 {
			sink[i][j] = 1
		}
	}
	sink = nil
	f := s.Stop()
	if f.Peak < 60<<20 {
		t.Errorf("peak %d B above the base, want the 64 MiB held", f.Peak)
	}
	if f.Allocated < 64<<20 {
		t.Errorf("allocated %d B, want at least 64 MiB", f.Allocated)
	}
}
