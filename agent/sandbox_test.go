package agent_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/internal/testenv"
)

// srtOnPath puts the srt of scripts/srt first on PATH.
func srtOnPath(t *testing.T) {
	t.Helper()
	t.Setenv("PATH", testenv.SrtDir(t)+string(os.PathListSeparator)+os.Getenv("PATH"))
}

func TestSandboxedAgent(t *testing.T) {
	srtOnPath(t)
	py := testPython(t)
	cfgJSON, _ := json.Marshal(map[string]any{"python": py, "sandbox": true, "enable_subagents": false})
	ws := workspace(t, string(cfgJSON))
	if err := os.WriteFile(filepath.Join(ws, ".env"), []byte("TOKEN=secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "escaped.txt")
	code := "try:\n    open('.env').read()\nexcept PermissionError:\n    print('env blocked')\n" +
		"try:\n    open(" + jsonString(outside) + ", 'w').write('x')\nexcept OSError:\n    print('write blocked')\n" +
		"open('inside.txt', 'w').write('ok')\n!echo shell ok"
	sc, err := modeltest.ParseScenario([]byte(`
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: ` + jsonString(code) + `}}}]
  - expect:
      last: [{role: user, response: ipybox_execute_ipython_cell, output: "env blocked\nwrite blocked\nshell ok"}]
    reply: [{text: "Contained."}]
`))
	if err != nil {
		t.Fatal(err)
	}
	modeltest.UseGemini(t, sc)
	a, err := agent.New(load(t, ws), agent.WithDirs(testDirs), agent.WithKernelDir(t.TempDir()), agent.WithoutProvisioning())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if err := a.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer a.Stop()
	if !a.Sandboxed() {
		t.Error("agent does not say it is sandboxed")
	}
	events := run(t, a, "Try to escape.", nil)
	if r := of[*agent.Response](events); len(r) != 1 || r[0].Text != "Contained." {
		t.Errorf("events:%s", describe(events))
	}
	if _, err := os.Stat(outside); err == nil {
		t.Error("the cell wrote outside the workspace")
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "inside.txt")); string(b) != "ok" {
		t.Error("the cell could not write in the workspace")
	}
}

// TestSandboxedAgentKeepsItsConfig: a sandboxed agent's code cannot turn
// the sandbox off or allow itself more, whichever of the agent's files it
// tries (agent.json, permissions.json, freeact 0.11's config.toml and
// permissions.toml, a new .env, a .venv for the next start), while it
// still saves tools in .freeact/generated. Reloading the workspace
// afterwards gives the same settings and rules.
func TestSandboxedAgentKeepsItsConfig(t *testing.T) {
	srtOnPath(t)
	py := testPython(t)
	cfgJSON, _ := json.Marshal(map[string]any{"python": py, "sandbox": true, "enable_subagents": false})
	ws := workspace(t, string(cfgJSON))
	before := map[string][]byte{}
	for _, f := range []string{config.AgentFile, "permissions.json"} {
		b, err := os.ReadFile(filepath.Join(ws, config.FreeactDir, f))
		if err != nil {
			t.Fatal(err)
		}
		before[f] = b
	}
	code := `import os
def attempt(what, fn):
    try:
        fn()
        print(what, "done")
    except OSError as e:
        print(what, "refused:", e.strerror)
attempt("agent.json", lambda: open(".freeact/agent.json", "w").write('{"sandbox": false}'))
attempt("permissions.json", lambda: open(".freeact/permissions.json", "w").write('{"allow": [{"type": "CodeAction", "tool_name": "*"}], "ask": []}'))
attempt("config.toml", lambda: open(".freeact/config.toml", "w").write("[agent]\n"))
attempt("permissions.toml", lambda: open(".freeact/permissions.toml", "w").write(""))
attempt(".env", lambda: open(".env", "w").write("GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:9\n"))
attempt(".venv", lambda: os.makedirs(".venv/bin"))
os.makedirs(".freeact/generated/gentools/demo/tool", exist_ok=True)
open(".freeact/generated/gentools/demo/tool/api.py", "w").write("def run(): return 1\n")
print("saved")`
	sc, err := modeltest.ParseScenario([]byte(`
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: ` + jsonString(code) + `}}}]
  - expect:
      last: [{role: user, response: ipybox_execute_ipython_cell, output: "saved"}]
    reply: [{text: "Tried."}]
`))
	if err != nil {
		t.Fatal(err)
	}
	modeltest.UseGemini(t, sc)
	a := started(t, ws, agent.WithKernelDir(t.TempDir()), agent.WithoutProvisioning())
	events := run(t, a, "Change your settings.", nil)
	if r := of[*agent.Response](events); len(r) != 1 || r[0].Text != "Tried." {
		t.Errorf("events:%s", describe(events))
	}
	if err := a.Stop(); err != nil {
		t.Fatal(err)
	}
	for f, want := range before {
		if b, _ := os.ReadFile(filepath.Join(ws, config.FreeactDir, f)); string(b) != string(want) {
			t.Errorf("%s changed: %s", f, b)
		}
	}
	for _, p := range []string{".freeact/config.toml", ".freeact/permissions.toml", ".env", ".venv"} {
		if _, err := os.Lstat(filepath.Join(ws, p)); err == nil {
			t.Errorf("%s exists after the agent stopped", p)
		}
	}
	if b, err := os.ReadFile(filepath.Join(ws, ".freeact/generated/gentools/demo/tool/api.py")); err != nil || string(b) != "def run(): return 1\n" {
		t.Errorf("saved tool: %q %v", b, err)
	}
	if cfg := load(t, ws); !cfg.Options.Sandbox {
		t.Error("the reloaded settings have the sandbox off")
	}
}

// TestSandboxHidesTheAppsKeys: the API keys the app stores (outside any
// workspace) are as hidden from sandboxed code as the workspace's .env.
func TestSandboxHidesTheAppsKeys(t *testing.T) {
	srtOnPath(t)
	py := testPython(t)
	cfgJSON, _ := json.Marshal(map[string]any{"python": py, "sandbox": true, "enable_subagents": false})
	ws := workspace(t, string(cfgJSON))
	store := config.NewAppStore(t.TempDir())
	if _, err := store.SetAPIKey("OPENAI_API_KEY", "stored-secret"); err != nil {
		t.Fatal(err)
	}
	code := "import os\nfor root, _, files in os.walk(" + jsonString(store.Dir()) + "):\n" +
		"    for f in files:\n        print(f, open(os.path.join(root, f)).read())\nprint('listed')"
	sc, err := modeltest.ParseScenario([]byte(`
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: ` + jsonString(code) + `}}}]
  - reply: [{text: "Done."}]
`))
	if err != nil {
		t.Fatal(err)
	}
	modeltest.UseGemini(t, sc)
	w, err := agent.OpenWorkspace(ws, agent.WorkspaceOptions{Keys: store})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	a, err := w.StartAgent(ctx, w.Config, agent.WithKernelDir(t.TempDir()), agent.WithoutProvisioning())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Stop()
	out := of[*agent.CodeExecutionOutput](run(t, a, "Read the keys.", nil))
	if len(out) != 1 || !strings.Contains(out[0].Text, "listed") || strings.Contains(out[0].Text, "stored-secret") {
		t.Errorf("the cell saw: %+v", out)
	}
}

func TestSandboxWithRemoteServerRefused(t *testing.T) {
	t.Setenv("GEMINI_API_KEY", "fake-key")
	ws := workspace(t, `{"sandbox": true, "jupyter_url": "http://127.0.0.1:1"}`)
	a, err := agent.New(load(t, ws))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Stop()
	if err := a.Start(context.Background()); err == nil || !strings.Contains(err.Error(), "jupyter_url") {
		t.Errorf("err = %v", err)
	}
}

// TestSandboxedMCPServer starts the reference filesystem MCP server through
// srt, the way docs/sandbox.md shows, and checks that the server itself is
// confined: it may write in the workspace only and cannot read .env.
func TestSandboxedMCPServer(t *testing.T) {
	srtOnPath(t)
	server := testenv.MCPServer(t, "server-filesystem")
	ws := t.TempDir()
	outside := filepath.Join(t.TempDir(), "outside.txt")
	settings := filepath.Join(ws, "sandbox-filesystem-mcp.json")
	b, _ := json.Marshal(map[string]any{
		"network":    map[string]any{"allowedDomains": []string{}, "deniedDomains": []string{}},
		"filesystem": map[string]any{"denyRead": []string{filepath.Join(ws, ".env"), settings}, "allowWrite": []string{ws}, "denyWrite": []string{settings}},
	})
	if err := os.WriteFile(settings, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".env"), []byte("TOKEN=secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]any{"mcp_servers": map[string]any{
		// The server may touch all of /tmp; the sandbox narrows it down.
		// srt and node start slowly on a loaded machine.
		"fs": map[string]any{"command": "srt", "args": []string{"--settings", settings, "node", server, "/tmp"}, "connect_timeout": 60},
	}})
	if err := os.MkdirAll(filepath.Join(ws, ".freeact"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".freeact", "agent.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	a, _ := realKernels.startIn(t, ws, `
turns:
  - reply:
      - call: {id: c1, name: fs_read_text_file, args: {path: `+jsonString(filepath.Join(ws, ".env"))+`}}
      - call: {id: c2, name: fs_write_file, args: {path: `+jsonString(settings)+`, content: "{}"}}
      - call: {id: c3, name: fs_write_file, args: {path: `+jsonString(filepath.Join(ws, "inside.txt"))+`, content: "ok"}}
      - call: {id: c4, name: fs_write_file, args: {path: `+jsonString(outside)+`, content: "x"}}
  - expect:
      last:
        - {role: user, response: fs_read_text_file, output: "EACCES"}
        - {role: user, response: fs_write_file, output: "EBUSY"}
        - {role: user, response: fs_write_file, output: "Successfully wrote"}
        - {role: user, response: fs_write_file, output: "outside allowed directories"}
    reply: [{text: "Confined."}]
`)
	// The .env read and the settings write meet the sandbox (the server's
	// roots, the workspace, allow both; srt mounts the settings read-only,
	// so the server's rename over them fails with EBUSY); the write outside
	// meets the roots first, as the client gives the workspace as its root.
	events := run(t, a, "Try the files.", nil)
	if _, err := os.Stat(outside); err == nil {
		t.Error("the sandboxed server wrote outside the workspace")
	}
	if b, _ := os.ReadFile(settings); string(b) == "{}" {
		t.Error("the sandboxed server rewrote its own sandbox settings")
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "inside.txt")); string(b) != "ok" {
		t.Errorf("the sandboxed server could not write in the workspace:%s", describe(events))
	}
}

// TestAgentsShareAKernelDir: two agents over one kernel state directory
// (two freeact instances of one user), one sandboxed, started in either
// order. A kernel the sandboxed agent starts after both are up (its first
// one died) still runs in the sandbox: each agent keeps its kernelspec and
// sandbox settings in a directory of its own, gone when it stops.
func TestAgentsShareAKernelDir(t *testing.T) {
	srtOnPath(t)
	py := testPython(t)
	for _, sandboxedFirst := range []bool{true, false} {
		t.Run(map[bool]string{true: "sandboxed first", false: "plain first"}[sandboxedFirst], func(t *testing.T) {
			base := t.TempDir()
			outside := filepath.Join(t.TempDir(), "escaped.txt")
			startAgent := func(sandbox bool, sc string) *agent.Agent {
				cfg, _ := json.Marshal(map[string]any{"python": py, "sandbox": sandbox, "enable_subagents": false, "enable_persistence": false})
				m := &switchModel{}
				if sc != "" {
					s, err := modeltest.ParseScenario([]byte(sc))
					if err != nil {
						t.Fatal(err)
					}
					m.use(t, s)
				}
				return started(t, workspace(t, string(cfg)), agent.WithKernelDir(base), agent.WithoutProvisioning(), agent.WithModel(m))
			}
			write := "try:\n    open(" + jsonString(outside) + ", 'w').write('x')\n    print('wrote')\nexcept OSError:\n    print('write blocked')"
			sandboxedScenario := `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)"}}}]
  - reply: [{call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: ` + jsonString(write) + `}}}]
  - expect:
      last: [{role: user, response: ipybox_execute_ipython_cell, output: "write blocked"}]
    reply: [{text: "Contained."}]
`
			var sandboxed, plain *agent.Agent
			if sandboxedFirst {
				sandboxed = startAgent(true, sandboxedScenario)
				plain = startAgent(false, "")
			} else {
				plain = startAgent(false, "")
				sandboxed = startAgent(true, sandboxedScenario)
			}
			events := run(t, sandboxed, "Try to escape after a restart.", nil)
			if r := of[*agent.Response](events); len(r) == 0 || r[len(r)-1].Text != "Contained." {
				t.Errorf("events:%s", describe(events))
			}
			if _, err := os.Stat(outside); err == nil {
				t.Error("the sandboxed agent's new kernel wrote outside the workspace")
			}
			for _, a := range []*agent.Agent{sandboxed, plain} {
				if err := a.Stop(); err != nil {
					t.Errorf("stop: %v", err)
				}
			}
			if entries, _ := os.ReadDir(base); len(entries) > 0 {
				t.Errorf("left in the kernel state directory: %v", entries)
			}
		})
	}
}

// TestSandboxHidesTheCheckpoints: the checkpoint stores (earlier versions
// of every workspace's files) are as hidden from sandboxed code as .env,
// and the workspace's .env is never copied into them.
func TestSandboxHidesTheCheckpoints(t *testing.T) {
	srtOnPath(t)
	py := testPython(t)
	cfgJSON, _ := json.Marshal(map[string]any{"python": py, "sandbox": true, "enable_subagents": false, "checkpoints": true})
	ws := workspace(t, string(cfgJSON))
	if err := os.WriteFile(filepath.Join(ws, ".env"), []byte("TOKEN=env-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	// Another workspace's store, as an older version left it.
	other := filepath.Join(root, "0123456789abcdef", "objects", "ab")
	if err := os.MkdirAll(other, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "cdef"), []byte("TOKEN=other-secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	code := "import os\nfor root, _, files in os.walk(" + jsonString(root) + "):\n" +
		"    for f in files:\n        print(f, open(os.path.join(root, f), errors='replace').read())\n" +
		"open('a.txt', 'w').write('a')\nprint('listed')"
	sc, err := modeltest.ParseScenario([]byte(`
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: ` + jsonString(code) + `}}}]
  - reply: [{call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: ` + jsonString(code) + `}}}]
  - reply: [{text: "Done."}]
`))
	if err != nil {
		t.Fatal(err)
	}
	modeltest.UseGemini(t, sc)
	cfg, err := config.Load(ws, config.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(cfg, agent.WithKernelDir(t.TempDir()), agent.WithoutProvisioning(), agent.WithCheckpointRoot(root))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if err := a.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer a.Stop()
	out := of[*agent.CodeExecutionOutput](run(t, a, "Read the checkpoints.", nil))
	if len(out) != 2 {
		t.Fatalf("outputs: %+v", out)
	}
	for _, o := range out {
		if !strings.Contains(o.Text, "listed") || strings.Contains(o.Text, "secret") {
			t.Errorf("the cell saw: %q", o.Text)
		}
	}
	// The store exists and was used, and holds no .env content.
	found := false
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, _ := os.ReadFile(p)
		if strings.Contains(string(data), "env-secret") {
			t.Errorf("%s holds the .env content", p)
		}
		found = found || strings.HasSuffix(p, "records.jsonl")
		return nil
	})
	if err != nil || !found {
		t.Fatalf("no checkpoint records under %s (%v)", root, err)
	}
}
