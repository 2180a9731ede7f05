//go:build localmodel

package localmodel_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/internal/testenv"
)

// freeact builds the program once per test.
func freeact(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "freeact")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/freeact/desktop").CombinedOutput()
	if err != nil {
		t.Fatalf("build freeact: %v\n%s", err, out)
	}
	return bin
}

// event is one line of freeact run --json.
type event map[string]any

func (e event) typ() string { s, _ := e["type"].(string); return s }

// runPrompt runs freeact run --prompt --json in a new workspace against the
// model string, approving the first approvals and rejecting the rest (a
// small model may go on calling tools), and returns its events and exit
// status. settings are added to the model settings.
func runPrompt(t *testing.T, bin, modelString, prompt string, approve int, settings map[string]any) ([]event, int) {
	t.Helper()
	ws := t.TempDir()
	ms := map[string]any{"temperature": 0, "max_tokens": 256}
	maps.Copy(ms, settings)
	agentJSON, _ := json.Marshal(map[string]any{
		"model": modelString, "python": testenv.Python(t), "enable_subagents": false,
		"model_settings": ms,
	})
	if err := os.MkdirAll(filepath.Join(ws, ".freeact"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".freeact", "agent.json"), agentJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	xdg := t.TempDir()
	env := []string{"HOME=" + xdg, "PATH=" + os.Getenv("PATH"), "NO_COLOR=1",
		"XDG_CONFIG_HOME=" + filepath.Join(xdg, "config"), "XDG_DATA_HOME=" + filepath.Join(xdg, "data"),
		"XDG_STATE_HOME=" + filepath.Join(xdg, "state"), "XDG_CACHE_HOME=" + filepath.Join(xdg, "cache")}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "run", "--workspace", ws, "--prompt", prompt, "--json")
	cmd.Env = env
	cmd.Stdin = strings.NewReader(strings.Repeat("y\n", approve) + strings.Repeat("n\n", 100))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	status := 0
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		status = exitErr.ExitCode()
	} else if err != nil {
		t.Fatalf("freeact run: %v\n%s", err, stderr.String())
	}
	var events []event
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var ev event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %q is not JSON: %v", sc.Text(), err)
		}
		events = append(events, ev)
	}
	if t.Failed() || status != 0 && status != 3 {
		t.Logf("stderr:\n%s", stderr.String())
	}
	return events, status
}

// codeActionRan checks that a code action was asked for, ran in the
// kernel, and that its result went back to the model, which answered.
func codeActionRan(t *testing.T, events []event, status int) {
	t.Helper()
	var summary []string
	ran := -1
	for i, ev := range events {
		line := ev.typ()
		switch ev.typ() {
		case "ApprovalRequest":
			call, _ := ev["tool_call"].(map[string]any)
			line += " " + strings.TrimSpace(firstString(call["type"], "")+" "+firstString(call["code"], ""))
		case "ToolOutput", "Response", "Failed", "ReplyCut":
			b, _ := json.Marshal(ev)
			line += " " + string(b)
		case "CodeExecutionOutput":
			line += " " + firstString(ev["text"], "")
			if ran < 0 {
				ran = i
			}
		case "ResponseChunk", "CodeExecutionOutputChunk", "ThoughtsChunk":
			continue
		}
		summary = append(summary, line)
	}
	t.Logf("exit status %d, events:\n  %s", status, strings.Join(summary, "\n  "))
	if status != 0 && status != 3 {
		t.Fatalf("exit status %d: want 0 (answered) or 3 (a later call rejected)", status)
	}
	if ran < 0 {
		t.Fatal("no code action ran in the kernel")
	}
	answered := false
	for _, ev := range events[ran+1:] {
		if ev.typ() == "Usage" || ev.typ() == "Response" {
			answered = true
		}
	}
	if !answered {
		t.Error("the model was not called again with the code action's result")
	}
}

func firstString(v any, def string) string {
	if s, ok := v.(string); ok {
		return s
	}
	return def
}

// A real tool call from the server runs as a code action. SmolLM2-135M
// begins no tool call of its own with any template tried, so the
// workspace sets tool_choice required and the server uses functionary
// v3.2's template: llama.cpp's grammar holds the model to the call format
// (every reply is then a call; the later ones are refused, exit 3). It
// fails today: held to the format, the model picks the file tools
// (filesystem_write_text_file, filesystem_edit_text_file), not the code
// tool, even when the prompt names it.
func TestCodeActionByToolCall(t *testing.T) {
	bin := freeact(t)
	srv := startLlama(t, "--chat-template-file", env(t, "LLAMA_CALL_TEMPLATE"), "--ctx-size", "8192")
	events, status := runPrompt(t, bin, srv.URL+"/v1#smollm2", "Call ipybox_execute_ipython_cell to print the sum of 2 and 3.", 2,
		map[string]any{"tool_choice": "required", "max_tokens": 96})
	codeActionRan(t, events, status)
}

// With SmolLM2's own template, which has no tool calls, /props says so and
// the agent asks for python blocks: the model's block runs as a code
// action.
func TestCodeActionByCodeBlock(t *testing.T) {
	bin := freeact(t)
	srv := startLlama(t, "--ctx-size", "8192")
	events, status := runPrompt(t, bin, srv.URL+"/v1#smollm2", "Write a Python code block that prints the sum of 2 and 3.", 2, nil)
	codeActionRan(t, events, status)
}

// A real tool call from the server runs through the agent: asked for,
// approved, run, and its result sent back to the model, which is called
// again. Under tool_choice required SmolLM2-135M picks the file tools as
// often as the code tool, so this takes whichever call comes first.
func TestToolCallRunsEndToEnd(t *testing.T) {
	bin := freeact(t)
	srv := startLlama(t, "--chat-template-file", env(t, "LLAMA_CALL_TEMPLATE"), "--ctx-size", "8192")
	events, status := runPrompt(t, bin, srv.URL+"/v1#smollm2", "Call ipybox_execute_ipython_cell to print the sum of 2 and 3.", 2,
		map[string]any{"tool_choice": "required", "max_tokens": 96})
	if status != 0 && status != 3 {
		t.Fatalf("exit status %d: want 0 or 3 (a later call refused)", status)
	}
	asked := map[string]bool{}
	for i, ev := range events {
		switch ev.typ() {
		case "ApprovalRequest":
			asked[firstString(ev["correlation_id"], "")] = true
		case "ToolOutput":
			if isErr, _ := ev["is_error"].(bool); isErr || !asked[firstString(ev["correlation_id"], "")] {
				continue
			}
			for _, next := range events[i+1:] {
				if next.typ() == "Usage" {
					t.Logf("%s ran: %v; the model was called again", ev["tool_name"], ev["content"])
					return
				}
			}
		}
	}
	b, _ := json.Marshal(events)
	t.Fatalf("no tool call ran and went back to the model: %s", b)
}
