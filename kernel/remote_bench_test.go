package kernel

import (
	"context"
	"testing"
	"time"

	"github.com/freeact/desktop/internal/remotetest"
)

// BenchmarkRemoteTrivialCell: the round trip of "1+1" on a warm remote
// kernel, per server kind, on a stock server (Nagle on for the kernel
// websocket) and on one with remotetest.NoDelay in its configuration, with
// the client's TCP_QUICKACK (kernel/wswire/quickack_linux.go) on and off.
func BenchmarkRemoteTrivialCell(b *testing.B) {
	for _, kind := range remotetest.Kinds {
		for _, server := range []string{"stock", "nodelay"} {
			for _, client := range []string{"quickack", "plain"} {
				b.Run(string(kind)+"/"+server+"/"+client, func(b *testing.B) {
					rs := remotetest.Start(b, kind, remotetest.Options{NoDelay: server == "nodelay"})
					ctx := context.Background()
					s, err := ConnectServer(ctx, rs.URL, rs.Token, RemoteOptions{CAFile: rs.CAFile, plainTCP: client == "plain"})
					if err != nil {
						b.Fatal(err)
					}
					defer s.Close()
					k, err := s.StartKernel(ctx, KernelOptions{Host: &testHost{}})
					if err != nil {
						b.Fatal(err)
					}
					run(b, k, "1+1")
					durs := make([]time.Duration, 0, b.N)
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						t0 := time.Now()
						if _, err := k.Execute(ctx, "1+1", nil); err != nil {
							b.Fatal(err)
						}
						durs = append(durs, time.Since(t0))
					}
					b.StopTimer()
					b.ReportMetric(float64(percentile(durs, 0.5).Microseconds())/1000, "p50-ms")
					b.ReportMetric(float64(percentile(durs, 0.99).Microseconds())/1000, "p99-ms")
				})
			}
		}
	}
}
