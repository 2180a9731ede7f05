package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent/apigen"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/internal/testenv"
)

// The MCP reference servers from the npm registry, installed into
// scripts/mcp-servers by make test.

func refServer(t *testing.T, pkg string) string { return testenv.MCPServer(t, pkg) }

// processesWith lists the processes whose command line contains s.
func processesWith(s string) []string {
	var out []string
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		cmd, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err == nil && strings.Contains(string(cmd), s) {
			out = append(out, d.Name()+": "+strings.ReplaceAll(string(cmd), "\x00", " "))
		}
	}
	return out
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// everythingHTTP runs server-everything's streamable HTTP flavour as a
// process of the test and returns its endpoint.
func everythingHTTP(t *testing.T, js string) string {
	t.Helper()
	port := freePort(t)
	httpSrv := exec.Command("node", js, "streamableHttp")
	httpSrv.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	if err := httpSrv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = httpSrv.Process.Kill(); _ = httpSrv.Wait() })
	testenv.Eventually(t, time.Minute, func() error { // the server is starting
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			return fmt.Errorf("server-everything does not listen on %d: %v", port, err)
		}
		return c.Close()
	})
	return fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
}

func TestReferenceServerEverything(t *testing.T) {
	js := refServer(t, "server-everything")
	// The HTTP flavour runs as a process of the test; the Manager only
	// connects to it.
	url := everythingHTTP(t, js)
	for _, tr := range []struct {
		name string
		cfg  config.Server
	}{
		{"stdio", config.Server{Command: "node", Args: []string{js, "stdio"}}},
		{"http", config.Server{URL: url}},
	} {
		t.Run(tr.name, func(t *testing.T) {
			m, _ := newManager(t, map[string]config.Server{"everything": tr.cfg}, mcp.Options{ConnectTimeout: 30 * time.Second})
			ctx := context.Background()
			if err := m.Connect(ctx); err != nil {
				t.Fatal(err)
			}
			names := map[string]mcp.Tool{}
			for _, tool := range m.Tools() {
				names[tool.Name] = tool
			}
			for _, want := range []string{"echo", "get-sum", "get-structured-content", "get-tiny-image"} {
				if _, ok := names[want]; !ok {
					t.Fatalf("no tool %s among %v", want, names)
				}
			}
			if names["get-structured-content"].OutputSchema == nil {
				t.Error("get-structured-content has no output schema")
			}
			res, err := m.Call(ctx, "everything", "echo", json.RawMessage(`{"message": "hello \"world\""}`))
			if err != nil || !strings.Contains(res.Text, `hello "world"`) {
				t.Fatalf("echo: %+v %v", res, err)
			}
			res, err = m.Call(ctx, "everything", "get-sum", json.RawMessage(`{"a": 2, "b": 40}`))
			if err != nil || !strings.Contains(res.Text, "42") {
				t.Fatalf("get-sum: %+v %v", res, err)
			}
			res, err = m.Call(ctx, "everything", "get-structured-content", json.RawMessage(`{"location": "New York"}`))
			if err != nil || len(res.Structured) == 0 {
				t.Fatalf("get-structured-content: %+v %v", res, err)
			}
			res, err = m.Call(ctx, "everything", "get-tiny-image", nil)
			if err != nil || len(res.Images) != 1 || res.Images[0].MIMEType != "image/png" {
				t.Fatalf("get-tiny-image: %+v %v", res, err)
			}
			// Invalid arguments: an error naming the server, not a crash.
			_, err = m.Call(ctx, "everything", "get-sum", json.RawMessage(`{"a": "x"}`))
			res2, err2 := m.Call(ctx, "everything", "echo", json.RawMessage(`{"message": "still there"}`))
			if err2 != nil || !strings.Contains(res2.Text, "still there") {
				t.Fatalf("after a bad call (%v): %+v %v", err, res2, err2)
			}
		})
	}
}

func TestReferenceServerFilesystem(t *testing.T) {
	js := refServer(t, "server-filesystem")
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("line one\nline two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	marker := root // unique in the server's command line
	m := mcp.NewManager(map[string]config.Server{"fs": {Command: "node", Args: []string{js, root}, Cwd: root}}, mcp.Options{ConnectTimeout: 30 * time.Second})
	ctx := context.Background()
	tools, err := m.ServerTools(ctx, "fs")
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) < 5 {
		t.Fatalf("tools %v", tools)
	}
	res, err := m.Call(ctx, "fs", "read_text_file", json.RawMessage(fmt.Sprintf(`{"path": %q}`, filepath.Join(root, "notes.txt"))))
	if err != nil || res.IsError || !strings.Contains(res.Text, "line two") {
		t.Fatalf("read_text_file: %+v %v", res, err)
	}
	res, err = m.Call(ctx, "fs", "read_text_file", json.RawMessage(`{"path": "/etc/hostname"}`))
	if err == nil && !res.IsError {
		t.Fatalf("reading outside the allowed folder: %+v", res)
	}
	if len(processesWith(marker)) == 0 {
		t.Fatal("server process not found")
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, time.Minute, func() error {
		if p := processesWith(marker); len(p) > 0 {
			return fmt.Errorf("processes outlived Close: %v", p)
		}
		return nil
	})
}

// The Python API generated from the reference servers' real schemas imports
// in a real Python.
func TestReferenceServersGenerate(t *testing.T) {
	everything, filesystem := refServer(t, "server-everything"), refServer(t, "server-filesystem")
	py := testenv.Python(t)
	root := t.TempDir()
	m, _ := newManager(t, map[string]config.Server{
		"everything":  {Command: "node", Args: []string{everything, "stdio"}},
		"file-system": {Command: "node", Args: []string{filesystem, root}},
	}, mcp.Options{ConnectTimeout: 30 * time.Second})
	var modules []string
	for _, server := range m.Servers() {
		tools, err := m.ServerTools(context.Background(), server)
		if err != nil {
			t.Fatal(err)
		}
		list := make([]apigen.Tool, len(tools))
		names := make([]string, len(tools))
		for i, tl := range tools {
			list[i] = apigen.Tool{Name: tl.Name, Description: tl.Description, InputSchema: tl.InputSchema, OutputSchema: tl.OutputSchema}
			names[i] = tl.Name
		}
		if _, err := apigen.Generate(filepath.Join(root, "mcptools"), server, list); err != nil {
			t.Fatal(err)
		}
		for _, mod := range apigen.ModuleNames(names) {
			modules = append(modules, "mcptools."+apigen.ModuleName(server)+"."+mod)
		}
	}
	script := "import importlib, sys\nfor m in sys.argv[1:]:\n    mod = importlib.import_module(m)\n    assert mod.Params and mod.run, m\nprint('imported', len(sys.argv) - 1)"
	cmd := exec.Command(py, append([]string{"-c", script}, modules...)...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), fmt.Sprintf("imported %d", len(modules))) {
		t.Fatalf("python: %v\n%s", err, out)
	}
	t.Logf("%d generated modules import", len(modules))
}
