package testenv

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// HeapGrowth runs f and returns by how many bytes the Go heap grew above
// what it was before f at its peak while f ran (sampled every 2 ms, after
// a GC first), for benchmarks that bound memory as a multiple of a size.
func HeapGrowth(f func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
			runtime.ReadMemStats(&m)
			peak.Store(max(peak.Load(), m.HeapAlloc))
		}
	})
	f()
	close(stop)
	wg.Wait()
	return peak.Load() - min(base, peak.Load())
}
