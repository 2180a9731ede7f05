package kernel

import (
	"context"
	"testing"
	"time"
)

// BenchmarkVariables: one inspector refresh (Variables, from the Go call to
// the decoded listing) against a real kernel whose namespace holds
// 1,000 variables of mixed types, or a 1 GB array, frame or string. The
// target is at most 50 ms (p99).
func BenchmarkVariables(b *testing.B) {
	cases := []struct {
		name, setup string
		want        int // variables listed
	}{
		{"empty", "", 0}, // the round trip alone, for comparison
		{"1000-variables", `import numpy as np, pandas as pd
for i in range(250):
    globals()[f"n{i}"] = i
    globals()[f"s{i}"] = "text " * (i + 1)
    globals()[f"l{i}"] = list(range(i))
    globals()[f"a{i}"] = np.arange(i * 10)
del i
frames = {}
for j in (0, 60, 120, 180):
    globals()[f"a{j}"] = pd.DataFrame({"x": np.arange(1000), "y": np.ones(1000)})
del j
`, 1001},
		{"1GB-array", `import numpy as np
big = np.ones(2**27)  # 1 GiB of float64, every page touched
`, 1},
		{"1GB-frame", `import numpy as np, pandas as pd
frame = pd.DataFrame(np.ones((2**24, 8)), columns=list("abcdefgh"))  # 1 GiB
`, 1},
		{"1GB-string", `text = "x" * 2**30
`, 1},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			k := startKernel(b, sharedServer(b, newPython(b)), KernelOptions{Host: &testHost{}})
			if c.setup != "" {
				run(b, k, c.setup)
			}
			ctx := context.Background()
			ns, err := k.Variables(ctx) // installs the inspector
			if err != nil {
				b.Fatal(err)
			}
			if len(ns.Variables) != c.want {
				b.Fatalf("listed %d variables, want %d", len(ns.Variables), c.want)
			}
			durs := make([]time.Duration, 0, b.N)
			cut := 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				ns, err := k.Variables(ctx)
				if err != nil {
					b.Fatal(err)
				}
				durs = append(durs, time.Since(t0))
				if ns.ReprCut {
					cut++
				}
			}
			b.StopTimer()
			// Listings whose repr budget ran out (a loaded machine).
			b.ReportMetric(float64(cut)/float64(b.N), "repr-cut/op")
			b.ReportMetric(float64(percentile(durs, 0.5).Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(percentile(durs, 0.99).Microseconds())/1000, "p99-ms")
			// Free the gigabyte before the next case allocates its own.
			run(b, k, "globals().clear()")
		})
	}
}

// BenchmarkDescribe: the details of a 1 GB DataFrame (columns, dtypes, the
// first rows), as the inspector shows them and @name sends them.
func BenchmarkDescribe(b *testing.B) {
	k := startKernel(b, sharedServer(b, newPython(b)), KernelOptions{Host: &testHost{}})
	run(b, k, `import numpy as np, pandas as pd
frame = pd.DataFrame(np.ones((2**24, 8)), columns=list("abcdefgh"))
`)
	ctx := context.Background()
	if _, err := k.Describe(ctx, "frame"); err != nil {
		b.Fatal(err)
	}
	durs := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := k.Describe(ctx, "frame"); err != nil {
			b.Fatal(err)
		}
		durs = append(durs, time.Since(t0))
	}
	b.StopTimer()
	b.ReportMetric(float64(percentile(durs, 0.5).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(percentile(durs, 0.99).Microseconds())/1000, "p99-ms")
	run(b, k, "del frame")
}
