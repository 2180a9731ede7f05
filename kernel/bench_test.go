package kernel

import (
	"context"
	"os"
	"sort"
	"testing"
	"time"
)

// BenchmarkColdStart: a new server and kernel, from nothing to the first result.
func BenchmarkColdStart(b *testing.B) {
	py := newPython(b)
	for i := 0; i < b.N; i++ {
		dir, _ := os.MkdirTemp("", "freeact-bench-")
		ctx := context.Background()
		t0 := time.Now()
		s, err := StartServer(ctx, ServerOptions{Python: py, Dir: dir})
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		k, err := s.StartKernel(ctx, KernelOptions{Workspace: dir})
		if err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		if _, err := k.Execute(ctx, "1+1", nil); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(t1.Sub(t0).Milliseconds()), "server-ms")
		b.ReportMetric(float64(t2.Sub(t1).Milliseconds()), "kernel-ms")
		b.StopTimer()
		s.Close()
		os.RemoveAll(dir)
		b.StartTimer()
	}
}

func percentile(d []time.Duration, p float64) time.Duration {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[int(float64(len(d)-1)*p)]
}
