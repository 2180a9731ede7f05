//go:build journey

package journey

import (
	"fmt"
	"testing"
)

// BenchmarkParallelConversationsMemory measures the app (its process,
// the web view, the Jupyter server and the kernels) with 1, 2 and 4
// conversations kept running, each after a turn of one cell, and what
// each extra one adds (issue 39). Run it with
//
//	go test -tags journey -run '^$' -bench ParallelConversationsMemory -benchtime 1x ./journey/
func BenchmarkParallelConversationsMemory(b *testing.B) {
	words := []string{"one", "two", "three", "four"}
	sums := map[int][2]int64{}
	for b.Loop() {
		app := Start(b, Options{Workspace: Workspace(b, nil), Scenario: "testdata/parallel-memory.yaml"})
		app.WaitFor(Text("Kernel ready"))
		for i, w := range words {
			if i > 0 {
				app.Key("ctrl+n")
				app.WaitGone(Text(fmt.Sprintf("Conversation %s is done.", words[i-1])))
				app.WaitFor(Text("Kernel ready"))
			}
			app.RunApproved("Run conversation "+w, fmt.Sprintf("Conversation %s is done.", w))
			app.WaitFor(Text("Kernel ready"))
			if n := i + 1; n == 1 || n == 2 || n == 4 {
				procs := app.Memory()
				logProcs(b, fmt.Sprintf("%d conversations", n), procs)
				rss, pss := Sum(procs)
				sums[n] = [2]int64{rss, pss}
			}
		}
		app.Stop()
	}
	for _, n := range []int{1, 2, 4} {
		b.ReportMetric(mb(sums[n][0]), fmt.Sprintf("%dconv-RSS-MB", n))
		b.ReportMetric(mb(sums[n][1]), fmt.Sprintf("%dconv-PSS-MB", n))
	}
	b.ReportMetric(mb(sums[4][0]-sums[1][0])/3, "each-extra-RSS-MB")
	b.ReportMetric(mb(sums[4][1]-sums[1][1])/3, "each-extra-PSS-MB")
}
