package agent_test

import (
	"bytes"
	"context"
	"errors"
	"github.com/freeact/desktop/agent/failure"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/permission"
)

func TestOpenWorkspaceScaffoldsAndLoads(t *testing.T) {
	dir := t.TempDir()
	store := config.NewAppStore(t.TempDir())
	if _, err := store.SetAPIKey("FREEACT_TEST_STORED_KEY", "from-the-store"); err != nil {
		t.Fatal(err)
	}
	// A relative path is made absolute.
	t.Chdir(filepath.Dir(dir))
	ws, err := agent.OpenWorkspace(filepath.Base(dir), agent.WorkspaceOptions{Keys: store})
	if err != nil {
		t.Fatal(err)
	}
	if ws.Dir != dir || !ws.Created {
		t.Errorf("Dir %s, Created %v; want %s, true", ws.Dir, ws.Created, dir)
	}
	for _, f := range []string{config.AgentFile, permission.FileName} {
		if _, err := os.Stat(filepath.Join(dir, config.FreeactDir, f)); err != nil {
			t.Errorf("not scaffolded: %v", err)
		}
	}
	if ws.Config.Dir != dir || ws.Config.Options.Model != config.DefaultModel {
		t.Errorf("config of %s with model %q", ws.Config.Dir, ws.Config.Options.Model)
	}
	if got := ws.Config.Env.Getenv("FREEACT_TEST_STORED_KEY"); got != "from-the-store" {
		t.Errorf("stored key = %q, want the store's", got)
	}
	if ws.Permissions == nil || ws.Permissions.File() != filepath.Join(dir, config.FreeactDir, permission.FileName) {
		t.Errorf("permissions %+v", ws.Permissions)
	}

	// Opening again finds it; Load sees what changed since.
	again, err := agent.OpenWorkspace(dir, agent.WorkspaceOptions{})
	if err != nil || again.Created {
		t.Fatalf("reopen: created %v, %v", again != nil && again.Created, err)
	}
	if err := os.WriteFile(filepath.Join(dir, config.FreeactDir, config.AgentFile), []byte(`{"model": "gemini-2.5-pro"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := again.Load()
	if err != nil || cfg.Options.Model != "gemini-2.5-pro" {
		t.Errorf("Load after an edit: %v, %v", cfg, err)
	}
}

func TestOpenWorkspaceErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	broken := t.TempDir()
	if err := os.MkdirAll(filepath.Join(broken, config.FreeactDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(broken, config.FreeactDir, config.AgentFile), []byte(`{"modle": "x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, dir, want string }{
		{"missing folder", filepath.Join(t.TempDir(), "nope"), "is not a folder"},
		{"a file", file, "is not a folder"},
		{"bad agent.json", broken, `unknown key "modle"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := agent.OpenWorkspace(tc.dir, agent.WorkspaceOptions{}); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// Unreadable stored keys are a warning, not a reason to refuse the
// workspace: the environment or .env may hold the key.
func TestOpenWorkspaceWithBrokenKeyStore(t *testing.T) {
	storeDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(storeDir, "credentials.json"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	ws, err := agent.OpenWorkspace(t.TempDir(), agent.WorkspaceOptions{
		Keys: config.NewAppStore(storeDir), Log: slog.New(slog.NewTextHandler(&log, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	if ws.Config == nil || !strings.Contains(log.String(), "stored API keys not read") {
		t.Errorf("config %v, log %q", ws.Config, log.String())
	}
}

// A start that fails leaves nothing running and says why.
func TestStartAgentFailure(t *testing.T) {
	t.Setenv("GEMINI_API_KEY", "")
	t.Setenv("GOOGLE_API_KEY", "")
	ws, err := agent.OpenWorkspace(t.TempDir(), agent.WorkspaceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bad := *ws.Config
	bad.Options.Model = "cohere:command"
	_, err = ws.StartAgent(context.Background(), &bad)
	var se *agent.StartError
	if !errors.As(err, &se) || se.Step != failure.StepModel || !strings.Contains(err.Error(), "unknown provider") {
		t.Errorf("start with an unknown provider: %v", err)
	}
	t.Setenv("GEMINI_API_KEY", "k")
	noPython := *ws.Config
	py := "/no/such/python3"
	noPython.Options.Python = &py
	_, err = ws.StartAgent(context.Background(), &noPython, agent.WithoutProvisioning())
	if !errors.As(err, &se) || se.Step != failure.StepPython || !strings.Contains(err.Error(), py) || se.Summary() == "" || !strings.Contains(se.Fix(), "python") {
		t.Errorf("start with a missing interpreter: %v", err)
	}
	cfg := *ws.Config
	cfg.Options.EnablePersistence = false
	if _, err := ws.StartAgent(context.Background(), &cfg, agent.WithSessionID("abc")); err == nil || !strings.Contains(err.Error(), "enable_persistence") {
		t.Errorf("resume without persistence: %v", err)
	}
}

// Kernels are started by the agent itself: when that cannot even begin
// (here its state folder cannot be made), the failure is the kernel's,
// not a Jupyter server's, and its fix says what to check.
func TestStartAgentKernelFailureIsTheKernels(t *testing.T) {
	t.Setenv("GEMINI_API_KEY", "k")
	py := testPython(t)
	ws, err := agent.OpenWorkspace(t.TempDir(), agent.WorkspaceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := *ws.Config
	cfg.Options.Python = &py
	notAFolder := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notAFolder, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = ws.StartAgent(context.Background(), &cfg, agent.WithoutProvisioning(), agent.WithKernelDir(notAFolder))
	var se *agent.StartError
	if !errors.As(err, &se) {
		t.Fatalf("start with a kernel folder that cannot be made: %v, want a StartError", err)
	}
	if se.Step != failure.StepKernel || !strings.Contains(err.Error(), "prepare local kernels") ||
		strings.Contains(err.Error()+se.Summary()+se.Fix(), "Jupyter server") {
		t.Fatalf("start with a kernel folder that cannot be made: step %q: %v; %s %s", se.Step, err, se.Summary(), se.Fix())
	}
}
