package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/agent/mcp/mcptest"
	"github.com/freeact/desktop/internal/testenv"
)

// Conformance: fresh connections to servers of every protocol generation in
// use, over stdio and streamable HTTP, each checked for the protocol version
// it settled on and a working tool call:
//
//	Python mcp 1.22 (PyPI)      2025-06-18, initialize handshake
//	Python mcp 1.30 (PyPI)      2025-11-25, initialize handshake
//	Python mcp 2.3  (PyPI)      2026-07-28, server/discover
//	npm reference servers       2025-11-25 (TypeScript SDK)
//	mcp-go (mcptest)            2026-07-28
//
// TestConformance runs in make test; TestConformanceUnderLoad repeats it 20
// times a server with CPU hogs beside it (FREEACT_MCP_LOAD=1, make
// test-mcp-load).

// confServer is one server of the conformance matrix.
type confServer struct {
	name     string
	cfg      config.Server
	protocol string // the version the connection must settle on
	tool     string // called with {"a": 2, "b": 40}, answers 42
	// handshake is the version a modern server that also takes the
	// initialize handshake settles on when the probe went unanswered ("":
	// it does not take it then, as Python's mcp 2.x does not).
	handshake string
}

// pythonServer returns testdata/pyserver.py on the Python MCP SDK of a
// release line, over stdio or (transport "http") streamable HTTP on a
// socket the test listens on.
func pythonServer(t *testing.T, release, transport string) config.Server {
	t.Helper()
	py := testenv.PythonMCP(t, release)
	if transport == "stdio" {
		return config.Server{Command: py, Args: []string{"testdata/pyserver.py", "stdio"}}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f, err := l.(*net.TCPListener).File()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "testdata/pyserver.py", "http")
	cmd.ExtraFiles = []*os.File{f} // file descriptor 3 in the server
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	port := l.Addr().(*net.TCPAddr).Port
	l.Close() // the server holds its own copy of the socket
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return config.Server{URL: "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp"}
}

func conformanceServers(t *testing.T) []confServer {
	everything := refServer(t, "server-everything")
	servers := []confServer{
		{"mcp-go/stdio", mcptest.Stdio(t), "2026-07-28", "add", "2025-11-25"},
		{"mcp-go/http", mcptest.HTTP(t), "2026-07-28", "add", "2025-11-25"},
		{"npm-everything/stdio", config.Server{Command: "node", Args: []string{everything, "stdio"}}, "2025-11-25", "get-sum", ""},
		{"npm-everything/http", config.Server{URL: everythingHTTP(t, everything)}, "2025-11-25", "get-sum", ""},
	}
	for _, py := range []struct{ release, protocol string }{
		{"1.22", "2025-06-18"}, {"1.30", "2025-11-25"}, {"2.3", "2026-07-28"},
	} {
		for _, tr := range []string{"stdio", "http"} {
			servers = append(servers, confServer{
				"python-mcp-" + py.release + "/" + tr, pythonServer(t, py.release, tr), py.protocol, "add", "",
			})
		}
	}
	return servers
}

// connectOnce starts a fresh connection, checks the protocol version and
// calls the adding tool. late says the probe may have gone unanswered, so a
// server that takes the handshake then may settle on that version.
func connectOnce(ctx context.Context, s confServer, opts mcp.Options, late bool) error {
	m := mcp.NewManager(map[string]config.Server{"s": s.cfg}, opts)
	defer m.Close()
	tools, err := m.ServerTools(ctx, "s")
	if err != nil {
		return err
	}
	if got := m.ProtocolVersion("s"); got != s.protocol && !(late && got == s.handshake && got != "") {
		return fmt.Errorf("settled on protocol %q, want %q", got, s.protocol)
	}
	found := false
	for _, tool := range tools {
		found = found || tool.Name == s.tool
	}
	if !found {
		return fmt.Errorf("no tool %s among %v", s.tool, tools)
	}
	res, err := m.Call(ctx, "s", s.tool, json.RawMessage(`{"a": 2, "b": 40}`))
	if err != nil {
		return err
	}
	if res.IsError || !strings.Contains(res.ModelText(), "42") {
		return fmt.Errorf("%s(2, 40) = %q", s.tool, res.ModelText())
	}
	return nil
}

func TestConformance(t *testing.T) {
	for _, s := range conformanceServers(t) {
		t.Run(s.name, func(t *testing.T) {
			ctx := context.Background()
			for i := range 2 {
				if err := connectOnce(ctx, s, mcp.Options{ConnectTimeout: time.Minute}, false); err != nil {
					t.Fatalf("connect %d: %v", i+1, err)
				}
			}
		})
	}
}

// A server that reads the server/discover probe only after the client gave
// up on it (a Python server importing its SDK on a busy machine takes
// longer than the probe's 5 s) commits the connection to the modern protocol
// and refuses the initialize handshake that followed. A probe timeout of
// 50 ms makes that happen on every connection to a stdio server that
// starts slower than that: it must still connect, on the newest protocol
// both sides speak (for mcp-go's server, which also takes the handshake
// after a probe, the handshake's when the probe went unanswered).
func TestConformanceLateProbe(t *testing.T) {
	for _, s := range conformanceServers(t) {
		if !strings.HasSuffix(s.name, "/stdio") {
			continue
		}
		t.Run(s.name, func(t *testing.T) {
			opts := mcp.Options{ConnectTimeout: time.Minute, ProbeTimeout: 50 * time.Millisecond}
			if err := connectOnce(context.Background(), s, opts, true); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// cpuLoad keeps n threads busy until the test ends.
func cpuLoad(t *testing.T, n int) {
	var stop atomic.Bool
	for range n {
		go func() {
			runtime.LockOSThread()
			for !stop.Load() {
			}
		}()
	}
	t.Cleanup(func() { stop.Store(true) })
}

// 20 fresh connections to each server with three CPU hogs beside them and
// the app's default timeouts: none may fail. Slow (minutes), so it runs
// on request.
func TestConformanceUnderLoad(t *testing.T) {
	if os.Getenv("FREEACT_MCP_LOAD") == "" {
		t.Skip("set FREEACT_MCP_LOAD=1 (make test-mcp-load) to run 20 connects a server under CPU load")
	}
	servers := conformanceServers(t)
	cpuLoad(t, 3)
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			var failures []string
			var slowest time.Duration
			for i := range 20 {
				start := time.Now()
				if err := connectOnce(context.Background(), s, mcp.Options{}, true); err != nil { // the app's defaults
					failures = append(failures, fmt.Sprintf("connect %d: %v", i+1, err))
				}
				slowest = max(slowest, time.Since(start))
			}
			t.Logf("%s: 20 connects, %d failures, slowest %s", s.name, len(failures), slowest.Round(time.Millisecond))
			if len(failures) > 0 {
				t.Fatal(strings.Join(failures, "\n"))
			}
		})
	}
}
