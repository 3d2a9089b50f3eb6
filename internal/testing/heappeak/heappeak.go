package heappeak

import (
	"runtime"
	"runtime/metrics"
	"time"
)

// Sampler reads the heap's objects (live and not yet swept) every 2 ms:
// runtime.MemStats would stop the world at each read, and the peak between
// two GCs is what bounds a process's memory.
type Sampler struct {
	sample         []metrics.Sample
	base, alloc0   uint64
	peak           uint64
	done, finished chan struct{}
}

// Start collects garbage, takes the heap's size as the base and samples
// until Stop.
func Start() *Sampler {
	runtime.GC()
	s := &Sampler{
		sample: []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/allocs:bytes"}},
		done:   make(chan struct{}), finished: make(chan struct{}),
	}
	metrics.Read(s.sample)
	s.base, s.alloc0 = s.sample[0].Value.Uint64(), s.sample[1].Value.Uint64()
	s.peak = s.base
	go func() {
		defer close(s.finished)
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for {
			metrics.Read(sample)
			s.peak = max(s.peak, sample[0].Value.Uint64())
			select {
			case <-s.done:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

// Figures are a sampled run's heap, in bytes.
type Figures struct {
	// Base is the heap after the GC at Start.
	Base uint64
	// Peak is the largest heap sampled above Base.
	Peak uint64
	// Allocated is what the work allocated in all (most of it collected).
	Allocated uint64
}

// Stop ends the sampling and returns its figures.
func (s *Sampler) Stop() Figures {
	close(s.done)
	<-s.finished
	metrics.Read(s.sample) // a last reading: the work may have ended between two ticks
	s.peak = max(s.peak, s.sample[0].Value.Uint64())
	return Figures{Base: s.base, Peak: s.peak - s.base, Allocated: s.sample[1].Value.Uint64() - s.alloc0}
}
