package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/internal/remotetest"
	"github.com/freeact/desktop/kernel"
	"github.com/freeact/desktop/kernel/hub"
)

// A JupyterHub as the workspace's jupyter_url: without a token the start
// says how to sign in; with the token in the key store the agent starts
// the user's stopped server (its progress on the provisioning path), runs
// its code there, in the Hub's folder and not the local one. It logs the
// time from "stopped" to the first cell's result.
func TestHubWorkspace(t *testing.T) {
	base, err := os.MkdirTemp("", "freeact-hub-local-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	ws := filepath.Join(base, "local", "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := config.Init(ws); err != nil {
		t.Fatal(err)
	}
	h := remotetest.StartHub(t, remotetest.Options{Hide: filepath.Join(base, "local")})
	data, _ := json.Marshal(map[string]any{"jupyter_url": h.URL + "hub/", "jupyter_workdir": "work", "enable_subagents": false})
	if err := os.WriteFile(filepath.Join(ws, config.FreeactDir, config.AgentFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	// No token: the start says how to sign in.
	a, err := agent.New(load(t, ws), agent.WithDirs(testDirs))
	if err != nil {
		t.Fatal(err)
	}
	err = a.Start(ctx)
	_ = a.Stop()
	if err == nil || !strings.Contains(err.Error(), "freeact remote login") {
		t.Fatalf("start without a token: %v; want how to sign in", err)
	}

	token, _ := h.Token(remotetest.HubUser, hub.Scopes...)
	hubBase, _ := hub.Base(h.URL)
	cfg, err := config.Load(ws, config.LoadOptions{APIKeys: map[string]string{hub.TokenName(hubBase): token}})
	if err != nil {
		t.Fatal(err)
	}
	var c remoteCalls
	c.code(fmt.Sprintf(`import os
print("cwd", os.getcwd())
print("local workspace visible:", os.path.exists(%q))`, ws))
	c.text("done")
	sc, err := modeltest.ParseScenario([]byte(c.scenario()))
	if err != nil {
		t.Fatal(err)
	}
	modeltest.UseGemini(t, sc)
	var mu sync.Mutex
	var steps []string
	begin := time.Now()
	a, err = agent.New(cfg, agent.WithDirs(testDirs), agent.WithProvisionProgress(func(p kernel.Progress) {
		mu.Lock()
		steps = append(steps, p.Step)
		mu.Unlock()
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Stop() })
	if err := a.Start(ctx); err != nil {
		t.Fatalf("start on the Hub: %v", err)
	}
	out := remoteResults(t, a, "where are you?", 1)
	t.Logf("stopped → first cell's result through the agent: %v", time.Since(begin))
	wantOutput(t, out[0], "ipybox_execute_ipython_cell", "cwd "+filepath.Join(h.Root, "work"), "local workspace visible: False")
	mu.Lock()
	defer mu.Unlock()
	joined := strings.Join(steps, "\n")
	if !strings.Contains(joined, remotetest.SpawnerMessage) || !strings.Contains(joined, "ready") {
		t.Errorf("progress lacks the spawner's message or ready:\n%s", joined)
	}
	if strings.Contains(joined, token) {
		t.Errorf("progress holds the token")
	}
}
