package agent_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/permission"
)

// guardCase is one entry of testdata/guard_corpus.yaml.
type guardCase struct {
	Name  string   `yaml:"name"`
	Setup string   `yaml:"setup"`
	Allow []string `yaml:"allow"`
	Cells []string `yaml:"cells"`
	Asks  string   `yaml:"asks"`
}

const guardSecret = "SECRET_VALUE"

// TestGuardCorpus runs every case of testdata/guard_corpus.yaml in a real
// kernel (subtest kernel) and in a real kernel in the srt sandbox
// (subtest sandbox), each in a fresh workspace, every shell request
// rejected: the command must be asked (no rule allows it), permissions.json
// must be as before and no output may show the .env's secret.
func TestGuardCorpus(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "guard_corpus.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []guardCase
	if err := yaml.Unmarshal(data, &cases); err != nil {
		t.Fatalf("guard_corpus.yaml: %v", err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Run("kernel", func(t *testing.T) { runGuardCase(t, c, false) })
			t.Run("sandbox", func(t *testing.T) { runGuardCase(t, c, true) })
		})
	}
}

// runGuardCase runs c in a plain real kernel or, with sandbox, in a real
// kernel in the srt sandbox. Every case holds the same in both: the guard
// asks before a command reaches the shell, in or out of the sandbox.
func runGuardCase(t *testing.T, c guardCase, sandbox bool) {
	cfg := map[string]any{"enable_persistence": false}
	var opts []agent.Option
	if sandbox {
		srtOnPath(t)
		cfg["python"], cfg["sandbox"], cfg["enable_subagents"] = testPython(t), true, false
		opts = []agent.Option{agent.WithKernelDir(t.TempDir()), agent.WithoutProvisioning()}
	} else {
		opts = []agent.Option{agent.WithKernelServer(server(t))}
	}
	cfgJSON, _ := json.Marshal(cfg)
	ws := workspace(t, string(cfgJSON))
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".env", "KEY="+guardSecret+"\n")
	write("permissions.evil", `{"allow": [{"type": "ShellAction", "tool_name": "*", "command": "*"}], "ask": []}`+"\n")
	perm, err := permission.Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	conv := perm.NewConversation()
	for _, r := range c.Allow {
		if err := conv.Add(permission.Always, false, permission.Rule{Type: permission.TypeShellAction, ToolName: permission.ShellTool, Command: r}); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(ws, ".freeact", "permissions.json")
	good, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	write("permissions.good", string(good))
	if c.Setup != "" {
		cmd := exec.Command("bash", "-euo", "pipefail", "-c", c.Setup)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("setup: %v\n%s", err, out)
		}
	}
	m := &switchModel{}
	a := started(t, ws, append(opts, agent.WithModel(m), agent.WithPermissions(perm))...)
	if a.Sandboxed() != sandbox {
		t.Fatalf("the agent says sandboxed %v, want %v", a.Sandboxed(), sandbox)
	}
	asks, out := playGuardCase(t, a, m, c)
	if !strings.Contains(strings.Join(asks, "\n"), c.Asks) {
		t.Errorf("no shell request asked for %q; asked: %q\noutput:\n%s", c.Asks, asks, out)
	}
	if now, _ := os.ReadFile(file); string(now) != string(good) {
		t.Errorf("permissions.json changed to %q\noutput:\n%s", now, out)
	}
	if strings.Contains(out, guardSecret) {
		t.Errorf("the output shows the .env secret:\n%s", out)
	}
}

// playGuardCase runs the cells as one turn, code actions approved and
// shell requests rejected, and returns what was asked and the output.
func playGuardCase(t *testing.T, a *agent.Agent, m *switchModel, c guardCase) ([]string, string) {
	t.Helper()
	m.use(t, corpusScenario(c.Name, c.Cells))
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	var asks []string
	var out strings.Builder
	for ev := range a.Stream(ctx, agent.Text("Run the cells.")) {
		switch e := ev.(type) {
		case *agent.ApprovalRequest:
			if call, ok := e.ToolCall.(agent.ShellAction); ok {
				asks = append(asks, call.Command)
				e.Approve(false)
				continue
			}
			e.Answer(agent.Once, "")
		case *agent.AutoApproved:
			if call, ok := e.ToolCall.(agent.ShellAction); ok {
				out.WriteString("[auto-approved: " + call.Command + "]\n")
			}
		case *agent.CodeExecutionOutput:
			out.WriteString(e.Text + "\n")
		}
	}
	return asks, out.String()
}
