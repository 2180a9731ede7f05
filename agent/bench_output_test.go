package agent_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/internal/testenv"
)

// BenchmarkLargeOutput: a code action printing 10 MB (100,000 lines of
// 100 bytes), from the start of the turn to the CodeExecutionOutput event
// (the complete output) at the stream's consumer, which also reads every
// chunk event as it comes. peak-heap/output is the growth of the Go heap
// during a turn (sampled), as a multiple of the output's size;
// host-cpu-ms/MB the processor time of this process (the agent, and the
// fake model server beside it) per MB of output.
func BenchmarkLargeOutput(b *testing.B) {
	const lines, width = 100_000, 100
	code := fmt.Sprintf("line = 'z' * %d\nfor _ in range(%d): print(line)", width-1, lines)
	var sc strings.Builder
	sc.WriteString("turns:\n")
	for i := 0; i <= b.N; i++ {
		fmt.Fprintf(&sc, "  - reply: [{call: {id: c%d, name: ipybox_execute_ipython_cell, args: {code: %s}}}]\n  - reply: [{text: done}]\n", i, jsonString(code))
	}
	s, err := modeltest.ParseScenario([]byte(sc.String()))
	if err != nil {
		b.Fatal(err)
	}
	modeltest.UseGemini(b, s)
	a, err := agent.New(load(b, workspace(b, "")), agent.WithDirs(testDirs), agent.WithKernelServer(server(b)), agent.WithSkipPermissions())
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	sctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := a.Start(sctx); err != nil {
		b.Fatal(err)
	}
	defer a.Stop()
	var worst float64
	turn := func() (time.Duration, int) {
		t0 := time.Now()
		var d time.Duration
		n, chunks := 0, 0
		for ev := range a.Stream(ctx, agent.Text("Go.")) {
			switch e := ev.(type) {
			case *agent.CodeExecutionOutputChunk:
				chunks++
			case *agent.CodeExecutionOutput:
				d, n = time.Since(t0), len(e.Text)
			}
		}
		if n != lines*width {
			b.Fatalf("output of %d bytes (%d chunks)", n, chunks)
		}
		return d, chunks
	}
	turn() // warm up: imports, first snapshot
	var durs []time.Duration
	b.ResetTimer()
	cpu := testenv.ProcessCPU()
	for i := 0; i < b.N; i++ {
		var d time.Duration
		grew := testenv.HeapGrowth(func() { d, _ = turn() })
		durs = append(durs, d)
		worst = max(worst, float64(grew)/(lines*width))
	}
	b.StopTimer()
	b.ReportMetric(float64(median(durs).Microseconds())/1000, "ms-p50")
	b.ReportMetric(worst, "peak-heap/output")
	b.ReportMetric(float64((testenv.ProcessCPU()-cpu).Microseconds())/1000/float64(b.N*lines*width/1e6), "host-cpu-ms/MB")
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
