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
// its code there, in the Hub's folder and not the local one. When the
// Hub's culler then stops the server, the next cell says the kernel was
// lost and runs on the server started again, and the replay offered
// restores the state. It logs the time from "stopped" to the first cell's
// result.
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
	data, _ := json.Marshal(map[string]any{"jupyter_url": h.URL + "hub/", "jupyter_workdir": "work", "enable_subagents": false,
		"jupyter_reconnect_timeout": 3})
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
x = 41
print("cwd", os.getcwd())
print("local workspace visible:", os.path.exists(%q))`, ws))
	c.text("done")
	c.code("print(x + 1)") // after the culler stopped the server
	c.text("lost")
	c.code("print(x + 1)") // after the replay, on the server started again
	c.text("back")
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

	// The Hub's culler stops the server mid-conversation: the next cell
	// says the kernel was lost, a replay is offered, and accepting it
	// starts the server again and restores the state.
	h.StopServer(remotetest.HubUser, "")
	mu.Lock()
	steps = nil
	mu.Unlock()
	out = remoteResults(t, a, "again", 1)
	if !out[0].IsError || !strings.Contains(out[0].Content, "kernel was lost while idle") {
		t.Fatalf("a cell on the culled server: %q; want it to say the kernel was lost", out[0].Content)
	}
	offer, ok := a.ReplayOffer()
	if !ok {
		t.Fatalf("no replay offered after the server was culled (cell said %q)", out[0].Content)
	}
	t.Logf("after the cull: %q; offer: %d cells", out[0].Content, len(offer.Cells))
	replayed := runCells(t, a.Replay(ctx), nil)
	for _, ev := range replayed {
		if o, ok := ev.(*agent.ToolOutput); ok && o.IsError {
			t.Fatalf("replay on the server started again: %q", o.Content)
		}
	}
	out = remoteResults(t, a, "and now", 1)
	wantOutput(t, out[0], "ipybox_execute_ipython_cell", "42")

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
