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
	"github.com/freeact/desktop/agent/model/modeltest"
)

// srtOnPath puts the srt of scripts/srt first on PATH (make test installs
// it there) or skips, failing under CI.
func srtOnPath(t *testing.T) {
	t.Helper()
	wd, _ := os.Getwd()
	bin := filepath.Join(filepath.Dir(wd), "scripts", "srt", "node_modules", ".bin")
	if _, err := os.Stat(filepath.Join(bin, "srt")); err != nil {
		msg := "srt not installed in scripts/srt (run npm install there)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
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
	a, err := agent.New(load(t, ws), agent.WithKernelDir(t.TempDir()), agent.WithoutProvisioning())
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
