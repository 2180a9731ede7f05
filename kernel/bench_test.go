package kernel

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/internal/testenv"
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
		b.ReportMetric(float64(time.Since(t2).Milliseconds()), "exec-ms")
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

// BenchmarkTrivialCell: round trip of "1+1" on a warm kernel, per server
// generation (jupyter_server 1.x is where Nagle used to add 40 ms).
func BenchmarkTrivialCell(b *testing.B) { benchCell(b, "1+1", nil) }

// benchCell times code run over and over on a warm kernel of each server
// generation and reports the p50 and p99; check, if set, looks at the host
// afterwards.
func benchCell(b *testing.B, code string, check func(b *testing.B, h *testHost)) {
	for _, v := range []struct {
		name string
		py   func(testing.TB) string
	}{{"new", newPython}, {"old", oldPython}} {
		b.Run(v.name, func(b *testing.B) {
			s := sharedServer(b, v.py(b))
			h := &testHost{}
			k := startKernel(b, s, KernelOptions{Host: h})
			run(b, k, code)
			ctx := context.Background()
			durs := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				res, err := k.Execute(ctx, code, nil)
				if err != nil {
					b.Fatal(err)
				}
				durs = append(durs, time.Since(t0))
				if res.Error != nil {
					b.Fatalf("cell raised %v", res.Error)
				}
			}
			b.StopTimer()
			if check != nil {
				check(b, h)
			}
			b.ReportMetric(float64(percentile(durs, 0.5).Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(percentile(durs, 0.99).Microseconds())/1000, "p99-ms")
		})
	}
}

// BenchmarkWarmPoolStart: StartKernel when the pool has a spare ready
// (including configuring it for its workspace).
func BenchmarkWarmPoolStart(b *testing.B) {
	py := newPython(b)
	s, err := StartServer(context.Background(), ServerOptions{Python: py, Dir: b.TempDir(), WarmPool: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ws := b.TempDir()
	var durs []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for len(s.spare) == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		// The spare finished starting just now; a subagent asks for its
		// kernel later than that, when the new process has settled.
		time.Sleep(100 * time.Millisecond)
		b.StartTimer()
		t0 := time.Now()
		k, err := s.StartKernel(context.Background(), KernelOptions{Workspace: ws})
		if err != nil {
			b.Fatal(err)
		}
		durs = append(durs, time.Since(t0))
		b.StopTimer()
		k.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(percentile(durs, 0.5).Microseconds())/1000, "p50-ms")
}

// BenchmarkCallbackRoundTrip: one shell approval from kernel to host and
// back (no command runs: the check is called directly), timed in the kernel;
// over ZeroMQ, and (jupyter_server) through a local server's websocket.
func BenchmarkCallbackRoundTrip(b *testing.B) {
	for _, v := range []struct {
		name      string
		py        func(testing.TB) string
		viaServer bool
	}{{"new", newPython, false}, {"old", oldPython, false}, {"new/jupyter_server", newPython, true}} {
		b.Run(v.name, func(b *testing.B) {
			s := sharedServer(b, v.py(b))
			if v.viaServer {
				var err error
				if s, err = StartServer(context.Background(), ServerOptions{Python: v.py(b), Dir: b.TempDir(), JupyterServer: true}); err != nil {
					b.Fatal(err)
				}
				defer s.Close()
			}
			k := startKernel(b, s, KernelOptions{Host: &testHost{}})
			run(b, k, "import time, freeact_kernel")
			b.ResetTimer()
			res := run(b, k, fmt.Sprintf(`ts = []
for _ in range(%d):
    t0 = time.perf_counter()
    freeact_kernel.approve_shell("ls")
    ts.append(time.perf_counter() - t0)
ts.sort()
print(ts[len(ts) // 2] * 1000, ts[(len(ts) - 1) * 99 // 100] * 1000)`, b.N))
			b.StopTimer()
			fields := strings.Fields(res.Text)
			if len(fields) != 2 {
				b.Fatalf("%q", res.Text)
			}
			for i, unit := range []string{"p50-ms", "p99-ms"} {
				v, err := strconv.ParseFloat(fields[i], 64)
				if err != nil {
					b.Fatalf("%q", res.Text)
				}
				b.ReportMetric(v, unit)
			}
		})
	}
}

// BenchmarkBangTrue: a cell "!true" whose shell request the host grants at
// once (as a permission rule does), end to end: execute_request, the
// approval round trip, bash, output, execute_reply and idle.
func BenchmarkBangTrue(b *testing.B) {
	benchCell(b, "!true", func(b *testing.B, h *testHost) {
		if n := len(h.commands()); n != b.N+1 {
			b.Fatalf("host saw %d shell requests, want %d", n, b.N+1)
		}
	})
}

// BenchmarkCallToolThroughput: call_tool calls per second from one cell.
func BenchmarkCallToolThroughput(b *testing.B) {
	s := sharedServer(b, newPython(b))
	k := startKernel(b, s, KernelOptions{Host: &testHost{}})
	run(b, k, "from freeact_runtime import call_tool")
	b.ResetTimer()
	t0 := time.Now()
	res := run(b, k, fmt.Sprintf("for i in range(%d): call_tool('s', 't', {'i': i})", b.N))
	d := time.Since(t0)
	b.StopTimer()
	if res.Error != nil {
		b.Fatal(res.Error)
	}
	b.ReportMetric(float64(b.N)/d.Seconds(), "calls/s")
}

// BenchmarkOutputMemory: 10 MB of printed output; reports the client's peak
// heap growth as a multiple of the output size.
func BenchmarkOutputMemory(b *testing.B) {
	s := sharedServer(b, newPython(b))
	k := startKernel(b, s, KernelOptions{})
	const size = 10_000_000
	code := fmt.Sprintf("import sys\nline = 'z' * 999 + '\\n'\nfor _ in range(%d): sys.stdout.write(line)", size/1000)
	worst := 0.0
	for i := 0; i < b.N; i++ {
		var res *Result
		grew := testenv.HeapGrowth(func() { res = run(b, k, code) })
		if len(res.Text) != size {
			b.Fatalf("got %d bytes", len(res.Text))
		}
		worst = max(worst, float64(grew)/size)
	}
	b.ReportMetric(worst, "peak-heap/output")
}

// BenchmarkLargeOutput: a cell printing 10 MB (100,000 lines of 100 bytes),
// from Execute to its result, with every chunk delivered to a callback;
// loop-ms is how long the print loop itself took in the kernel, and
// host-cpu-ms/MB the processor time of this process (reading, decoding,
// the callback's copy, the result) per MB of output.
func BenchmarkLargeOutput(b *testing.B) {
	s := sharedServer(b, newPython(b))
	k := startKernel(b, s, KernelOptions{})
	const code = "import time\nt0 = time.perf_counter()\nline = 'z' * 99\nfor _ in range(100000): print(line)\nprint('%.1f' % ((time.perf_counter() - t0) * 1000))"
	run(b, k, code)
	var durs []time.Duration
	var loop float64
	b.ResetTimer()
	cpu := testenv.ProcessCPU()
	for i := 0; i < b.N; i++ {
		var out strings.Builder
		t0 := time.Now()
		res, err := k.Execute(context.Background(), code, func(c Chunk) { out.WriteString(c.Text) })
		durs = append(durs, time.Since(t0))
		if err != nil {
			b.Fatal(err)
		}
		tail := res.Text[strings.LastIndexByte(strings.TrimSuffix(res.Text, "\n"), '\n')+1:]
		if len(res.Text)-len(tail) != 10_000_000 || out.String() != res.Text {
			b.Fatalf("result of %d bytes (tail %q), chunks of %d", len(res.Text), tail, out.Len())
		}
		l, _ := strconv.ParseFloat(strings.TrimSpace(tail), 64)
		loop += l
	}
	b.StopTimer()
	b.ReportMetric(float64(percentile(durs, 0.5).Microseconds())/1000, "p50-ms")
	b.ReportMetric(loop/float64(b.N), "loop-ms")
	b.ReportMetric(float64((testenv.ProcessCPU()-cpu).Microseconds())/1000/float64(10*b.N), "host-cpu-ms/MB")
}
