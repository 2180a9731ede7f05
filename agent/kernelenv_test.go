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
)

// TestKernelEnvironment: what a kernel's environment holds. The variables
// of the process that started freeact are there (code and its shell
// commands rely on them); API keys and variables the app read from the
// workspace's .env or its key store are not, unless kernel_env passes
// them; the local Jupyter server's token never is.
func TestKernelEnvironment(t *testing.T) {
	py := testPython(t)
	t.Setenv("FREEACT_TEST_EXPORTED", "from-the-shell")
	cfgJSON, _ := json.Marshal(map[string]any{
		"python": py, "enable_subagents": false, "enable_persistence": false,
		"kernel_env": map[string]string{"PASSED_ON": "${FROM_DOTENV_PASSED}"},
	})
	ws := workspace(t, string(cfgJSON))
	dotenv := "OPENAI_API_KEY=dotenv-openai-secret\nFROM_DOTENV_PASSED=dotenv-passed\n"
	if err := os.WriteFile(filepath.Join(ws, ".env"), []byte(dotenv), 0o600); err != nil {
		t.Fatal(err)
	}
	code := `import os
for k in ("FREEACT_TEST_EXPORTED", "PASSED_ON", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "FROM_DOTENV_PASSED", "JUPYTER_TOKEN"):
    print(k, os.environ.get(k, "unset"))
print("values:", " ".join(os.environ.values()))`
	sc, err := modeltest.ParseScenario([]byte(`
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: ` + jsonString(code) + `}}}]
  - reply: [{text: "Listed."}]
`))
	if err != nil {
		t.Fatal(err)
	}
	modeltest.UseGemini(t, sc)
	cfg, err := config.Load(ws, config.LoadOptions{APIKeys: map[string]string{"ANTHROPIC_API_KEY": "stored-anthropic-secret"}})
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(cfg, agent.WithDirs(testDirs), agent.WithKernelDir(t.TempDir()), agent.WithoutProvisioning())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if err := a.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer a.Stop()
	events := run(t, a, "Show the environment.", nil)
	out := of[*agent.CodeExecutionOutput](events)
	if len(out) != 1 {
		t.Fatalf("events:%s", describe(events))
	}
	text := out[0].Text
	for _, want := range []string{"FREEACT_TEST_EXPORTED from-the-shell", "PASSED_ON dotenv-passed", "OPENAI_API_KEY unset", "ANTHROPIC_API_KEY unset", "FROM_DOTENV_PASSED unset", "JUPYTER_TOKEN unset"} {
		if !strings.Contains(text, want) {
			t.Errorf("want %q in:\n%s", want, text)
		}
	}
	for _, secret := range []string{"dotenv-openai-secret", "stored-anthropic-secret"} {
		if strings.Contains(text, secret) {
			t.Errorf("%s is in the kernel's environment", secret)
		}
	}
}
