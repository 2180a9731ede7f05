//go:build journey

package journey

import (
	"bufio"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Issue 15: the desktop app's memory when idle, with a workspace open and
// its kernel ready, summed over every process it runs, beside the floor:
// the smallest WebKitGTK window (testdata/blankview.c) on the same display.
//
//	make bench-memory
//
// Both run while the accessibility bus is up (the app is read through it).
func BenchmarkDesktopIdleMemory(b *testing.B) {
	floor := blankView(b)
	var procs []Proc
	for b.Loop() {
		procs = idleApp(b)
	}
	for what, m := range map[string][]Proc{"app": procs, "blank-webview": floor} {
		rss, pss := Sum(m)
		b.ReportMetric(mb(rss), what+"-RSS-MB")
		b.ReportMetric(mb(pss), what+"-PSS-MB")
	}
}

// The app's own share, what it holds beyond a blank WebKitGTK window, stays
// within a budget: 197 MB when this test was written (the binary's code,
// the page, the Jupyter server and one kernel). A spare kernel started
// eagerly (53 MB) breaks it.
func TestIdleMemoryBeyondWebKit(t *testing.T) {
	const budget = 230 << 20
	floor, _ := Sum(blankView(t))
	app, _ := Sum(idleApp(t))
	if app-floor > budget {
		t.Errorf("idle, the app holds %.1f MB RSS beyond a blank WebKitGTK window (%.1f MB); the budget is %.0f MB",
			mb(app-floor), mb(floor), mb(budget))
	}
}

// idleApp opens a workspace, waits for its kernel and returns the app's
// processes.
func idleApp(tb testing.TB) []Proc {
	app := Start(tb, Options{Workspace: Workspace(tb, nil)})
	app.WaitFor(Text("Kernel ready"))
	procs := app.Memory()
	app.Stop()
	logProcs(tb, "app", procs)
	return procs
}

// logProcs logs the memory of each process and the sums.
func logProcs(tb testing.TB, what string, procs []Proc) {
	var lines []string
	for _, p := range procs {
		lines = append(lines, fmt.Sprintf("  %6.1f MB RSS %6.1f MB PSS  %s", mb(p.RSS), mb(p.PSS), p.Name))
	}
	rss, pss := Sum(procs)
	tb.Logf("%s: %.1f MB RSS, %.1f MB PSS\n%s", what, mb(rss), mb(pss), strings.Join(lines, "\n"))
}

func mb(n int64) float64 { return float64(n) / (1 << 20) }

// blankView builds and opens testdata/blankview.c and returns its
// processes once its page is shown.
func blankView(tb testing.TB) []Proc {
	const pkg = "webkit2gtk-4.1" // what the app links (make build)
	flags, err := exec.Command("pkg-config", "--cflags", "--libs", pkg).Output()
	if err != nil {
		tb.Fatalf("pkg-config %s: %v (install it with scripts/system-deps.sh)", pkg, err)
	}
	bin := filepath.Join(tb.TempDir(), "blankview")
	args := append([]string{"-O2", "-o", bin, filepath.Join("testdata", "blankview.c")}, strings.Fields(string(flags))...)
	if out, err := exec.Command("cc", args...).CombinedOutput(); err != nil {
		tb.Fatalf("build blankview: %v\n%s", err, out)
	}
	cmd := exec.Command(bin)
	// A process group of its own, so that WebKit's processes stop with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start blankview: %v", err)
	}
	defer func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	}()
	loaded := false
	for sc := bufio.NewScanner(stdout); !loaded && sc.Scan(); {
		loaded = sc.Text() == "loaded"
	}
	if !loaded {
		tb.Fatal("blankview ended before it showed its page")
	}
	procs, err := Tree(cmd.Process.Pid)
	if err != nil {
		tb.Fatal(err)
	}
	logProcs(tb, "blank WebKitGTK window", procs)
	return procs
}
