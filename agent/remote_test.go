package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp/mcptest"
	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/internal/remotetest"
)

// A remote workspace end to end, on each kind of server (Kernel Gateway,
// Enterprise Gateway, jupyter_server over TLS with a CA of its own), run
// as another user in a mount namespace where the local workspace does not
// exist: code, images, the file tools, shell approval and rejection, a
// programmatic MCP call through the generated modules, input(), an
// offloaded result read back by code, a skill file, reset, timeout,
// cancel, no spare kernel, resume, the server killed and restarted, a
// network blip that keeps the kernel, and cleanup through an outage.
func TestRemoteWorkspace(t *testing.T) {
	for _, kind := range remotetest.Kinds {
		t.Run(string(kind), func(t *testing.T) { testRemoteWorkspace(t, kind) })
	}
}

// remotePNG is a 1×1 PNG.
const remotePNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

// remoteCalls makes scenario turns: one call a turn, then a final text.
type remoteCalls []string

func (c *remoteCalls) code(code string) {
	*c = append(*c, fmt.Sprintf(`  - reply: [{call: {name: ipybox_execute_ipython_cell, args: {code: %s}}}]`, jsonString(code)))
}

func (c *remoteCalls) tool(name string, args map[string]any) {
	b, _ := json.Marshal(args)
	*c = append(*c, fmt.Sprintf(`  - reply: [{call: {name: %s, args: %s}}]`, name, b))
}

func (c *remoteCalls) raw(turn string) { *c = append(*c, turn) }

func (c *remoteCalls) text(s string) {
	*c = append(*c, fmt.Sprintf(`  - reply: [{text: %s}]`, jsonString(s)))
}

func (c remoteCalls) scenario() string { return "turns:\n" + strings.Join(c, "\n") + "\n" }

// remoteTurn runs a prompt: approvals are answered by answer (nil: yes),
// input() with "Ada", and onChunk sees the output as it comes.
func remoteTurn(t *testing.T, a *agent.Agent, prompt string, answer func(*agent.ApprovalRequest) agent.Decision, onChunk func(string)) []agent.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var events []agent.Event
	for ev := range a.Stream(ctx, agent.Text(prompt)) {
		events = append(events, ev)
		switch e := ev.(type) {
		case *agent.ApprovalRequest:
			d := agent.Once
			if answer != nil {
				d = answer(e)
			}
			e.Answer(d, "")
		case *agent.InputRequest:
			e.Reply("Ada")
		case *agent.CodeExecutionOutputChunk:
			if onChunk != nil {
				onChunk(e.Text)
			}
		}
	}
	if ctx.Err() != nil {
		t.Fatalf("turn did not end in time; events: %s", describe(events))
	}
	return events
}

// outputs are the results of the turn's tool calls, in order.
func outputs(events []agent.Event) []*agent.ToolOutput { return of[*agent.ToolOutput](events) }

// remoteResults runs a prompt, approving everything, and returns the
// results of its n tool calls.
func remoteResults(t *testing.T, a *agent.Agent, prompt string, n int) []*agent.ToolOutput {
	t.Helper()
	events := remoteTurn(t, a, prompt, nil, nil)
	out := outputs(events)
	if len(out) != n {
		t.Fatalf("%q: %d results, want %d; events: %s", prompt, len(out), n, describe(events))
	}
	return out
}

func startRemoteAgent(t *testing.T, ws string, calls remoteCalls, opts ...agent.Option) (*agent.Agent, *modeltest.Server) {
	t.Helper()
	sc, err := modeltest.ParseScenario([]byte(calls.scenario()))
	if err != nil {
		t.Fatalf("scenario: %v", err)
	}
	fake := modeltest.UseGemini(t, sc)
	a, err := agent.New(load(t, ws), append([]agent.Option{agent.WithDirs(testDirs)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := a.Start(ctx); err != nil {
		t.Fatalf("start agent: %v", err)
	}
	return a, fake
}

func wantOutput(t *testing.T, out *agent.ToolOutput, name string, want ...string) {
	t.Helper()
	if out.ToolName != name {
		t.Errorf("result of %s, want one of %s: %q", out.ToolName, name, out.Content)
		return
	}
	for _, w := range want {
		if !strings.Contains(out.Content, w) {
			t.Errorf("%s result lacks %q:\n%s", name, w, out.Content)
		}
	}
}

func wantNoKernels(t *testing.T, rs *remotetest.Server) {
	t.Helper()
	ids, err := rs.Kernels()
	if err != nil {
		t.Fatalf("list the server's kernels: %v", err)
	}
	if len(ids) != 0 {
		t.Errorf("kernels left running on the server: %v", ids)
	}
}

func testRemoteWorkspace(t *testing.T, kind remotetest.Kind) {
	// The local workspace lives in a folder the server cannot see.
	base, err := os.MkdirTemp("", "freeact-remote-local-")
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
	rs := remotetest.Start(t, kind, remotetest.Options{Hide: filepath.Join(base, "local")})
	root := filepath.Join(rs.Root, "work")
	writeConfig := func(url string) {
		opts := map[string]any{
			"jupyter_workdir":              "work",
			"execution_timeout":            8,
			"tool_result_inline_max_bytes": 300,
			"enable_subagents":             false,
			"kernel_env":                   map[string]string{"KERNEL_FREEACT_TEST": "passed"},
			"ptc_servers":                  map[string]any{"test": mcptest.Stdio(t)},
		}
		if kind == remotetest.KernelGateway {
			opts["jupyter_url"] = url + "?token=" + rs.Token // as Jupyter prints it
		} else {
			opts["jupyter_url"], opts["jupyter_token"] = url, rs.Token
		}
		if rs.CAFile != "" {
			opts["jupyter_ca_file"] = rs.CAFile
		}
		data, _ := json.Marshal(opts)
		if err := os.WriteFile(filepath.Join(ws, config.FreeactDir, config.AgentFile), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeConfig(rs.URL)

	// Session 1. The system prompt says where code runs.
	var c remoteCalls
	c.code(fmt.Sprintf(`import os
print("cwd", os.getcwd())
print("local workspace visible:", os.path.exists(%q))
print("started with KERNEL_FREEACT_TEST:", b"KERNEL_FREEACT_TEST=passed" in open("/proc/self/environ", "rb").read())`, ws))
	c[0] = strings.Replace(c[0], "  - reply:", `  - expect: {system_contains: "on the Jupyter server `+rs.URL+`, not on the user's machine"}
    reply:`, 1)
	c.code(fmt.Sprintf(`import base64
from IPython.display import Image, display
png = base64.b64decode(%q)
open("pic.png", "wb").write(png)
display(Image(data=png))`, remotePNG))
	c.code(`print("images:", [n[-4:] for n in os.listdir("images")])`)
	c.tool("filesystem_read_media_file", map[string]any{"path": "pic.png"})
	c.raw(`  - expect:
      last: [{role: user, response: filesystem_read_media_file, images: 1}]
    reply: [{call: {name: filesystem_write_text_file, args: {path: notes/a.txt, content: "one\ntwo\n"}}}]`)
	c.tool("filesystem_read_text_file", map[string]any{"path": "notes/a.txt"})
	c.tool("filesystem_edit_text_file", map[string]any{"path": "notes/a.txt", "old_text": "two", "new_text": "TWO"})
	c.code(`print(repr(open("notes/a.txt").read()))`)
	c.code(`!echo remote-shell $(whoami)`)
	c.code(`from mcptools.test import echo
print(echo.run(echo.Params(text="from the server")))`)
	c.code(`name = input("Name? ")
print("hello", name)`)
	c.code(`print("x" * 400 + "END")`)
	c.code(`import glob
p = max(glob.glob(".freeact/sessions/*/tool-results/*.txt"), key=os.path.getmtime)
print("read back:", len(open(p).read()), open(p).read().strip()[-3:])`)
	c.tool("filesystem_read_text_file", map[string]any{"path": ".freeact/skills/task-planning/SKILL.md", "limit": 3})
	c.code(`x = 41`)
	c.text("Done.")
	// Reset.
	c.tool("ipybox_reset", map[string]any{})
	c.code(`print("x defined:", "x" in dir())`)
	c.text("Reset.")
	// Timeout.
	c.code(`import time
time.sleep(60)`)
	c.code(`print("alive")`)
	c.text("Timed out.")
	// Rejection: the turn ends.
	c.code(`!rm -rf no-such-folder
print("ran", "after the rejection")`)
	// Cancel: the turn ends.
	c.code(`import time
print("sleeping", flush=True)
time.sleep(60)`)
	c.code(`y = 5
print("after cancel")`)
	c.text("Still here.")

	a, fake := startRemoteAgent(t, ws, c)
	stopped := false
	defer func() {
		if !stopped {
			_ = a.Stop()
		}
	}()
	_ = fake
	events := remoteTurn(t, a, "Where am I?", nil, nil)
	out := outputs(events)
	if len(out) != 15 {
		t.Fatalf("%d results, want 15; events: %s", len(out), describe(events))
	}
	// Checkpoints would snapshot the local folder: they are off, and the
	// user is told so once.
	var notes []string
	for _, n := range of[*agent.Notice](events) {
		if strings.Contains(n.Text, "Checkpoints are off") {
			notes = append(notes, n.Text)
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "on the Jupyter server") || len(of[*agent.FilesChanged](events)) != 0 {
		t.Errorf("checkpoint notices %q, %d FilesChanged; want one notice and none", notes, len(of[*agent.FilesChanged](events)))
	}
	wantOutput(t, out[0], "ipybox_execute_ipython_cell", "cwd "+root, "local workspace visible: False")
	if kind != remotetest.JupyterServer {
		// Gateways put the KERNEL_* variables of the start request into
		// the kernel's environment.
		wantOutput(t, out[0], "ipybox_execute_ipython_cell", "started with KERNEL_FREEACT_TEST: True")
	}
	wantOutput(t, out[1], "ipybox_execute_ipython_cell", "![image](images/")
	wantOutput(t, out[2], "ipybox_execute_ipython_cell", "images: ['.png']")
	wantOutput(t, out[3], "filesystem_read_media_file", "Image pic.png (1×1, image/png)")
	wantOutput(t, out[4], "filesystem_write_text_file", "Created notes/a.txt (8 bytes)")
	wantOutput(t, out[5], "filesystem_read_text_file", "one\ntwo")
	wantOutput(t, out[6], "filesystem_edit_text_file", "Edited notes/a.txt")
	wantOutput(t, out[7], "ipybox_execute_ipython_cell", `'one\nTWO\n'`)
	wantOutput(t, out[8], "ipybox_execute_ipython_cell", "remote-shell "+remotetest.User)
	wantOutput(t, out[9], "ipybox_execute_ipython_cell", "echo: from the server")
	wantOutput(t, out[10], "ipybox_execute_ipython_cell", "hello Ada")
	wantOutput(t, out[11], "ipybox_execute_ipython_cell", "was saved to .freeact/sessions/"+a.SessionID()+"/tool-results/")
	wantOutput(t, out[12], "ipybox_execute_ipython_cell", "read back: 404 END")
	wantOutput(t, out[13], "filesystem_read_text_file", "name: task-planning")
	// The files are on the server, not here; the session is here.
	if b, err := os.ReadFile(filepath.Join(root, "notes", "a.txt")); err != nil || string(b) != "one\nTWO\n" {
		t.Errorf("notes/a.txt on the server: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(ws, "notes")); err == nil {
		t.Error("the file tools wrote into the local workspace")
	}
	if _, err := os.Stat(filepath.Join(ws, config.FreeactDir, "sessions", a.SessionID(), "main.jsonl")); err != nil {
		t.Errorf("no local session file: %v", err)
	}
	// The saved image is in both places under the name the output gives.
	img := regexp.MustCompile(`images/[0-9a-f]{8}\.png`).FindString(out[1].Content)
	for _, dir := range []string{ws, root} {
		if _, err := os.Stat(filepath.Join(dir, img)); err != nil {
			t.Errorf("image %s: %v", img, err)
		}
	}
	// No warm spare on a remote server.
	if ids, err := rs.Kernels(); err != nil || len(ids) != 1 {
		t.Errorf("kernels on the server %v (%v), want the agent's one", ids, err)
	}

	out = remoteResults(t, a, "Reset.", 2)
	wantOutput(t, out[0], "ipybox_reset", "The kernel was restarted")
	wantOutput(t, out[1], "ipybox_execute_ipython_cell", "x defined: False")

	out = remoteResults(t, a, "Sleep.", 2)
	wantOutput(t, out[0], "ipybox_execute_ipython_cell", "Execution timed out after 8s")
	wantOutput(t, out[1], "ipybox_execute_ipython_cell", "alive")

	var asked []string
	events = remoteTurn(t, a, "Remove it.", func(r *agent.ApprovalRequest) agent.Decision {
		if s, ok := r.ToolCall.(agent.ShellAction); ok {
			asked = append(asked, s.Command)
			return agent.Reject
		}
		return agent.Once
	}, nil)
	if r := of[*agent.Response](events); len(r) == 0 || r[len(r)-1].Text != "Tool call rejected" || !slices.Equal(asked, []string{"rm -rf no-such-folder"}) {
		t.Fatalf("rejection: asked %q; events: %s", asked, describe(events))
	}
	if out := outputs(events); len(out) != 1 || strings.Contains(out[0].Content, "ran after the rejection") {
		t.Errorf("the cell went on after the rejection: %s", describe(events))
	}

	events = remoteTurn(t, a, "Sleep long.", nil, func(text string) {
		if strings.Contains(text, "sleeping") {
			a.Cancel()
		}
	})
	if cs := of[*agent.Cancelled](events); len(cs) != 1 || cs[0].Phase != "tool_execution" {
		t.Fatalf("cancel: %s", describe(events))
	}
	wantOutput(t, remoteResults(t, a, "Go on.", 1)[0], "ipybox_execute_ipython_cell", "after cancel")
	id := a.SessionID()
	stopped = true
	if err := a.Stop(); err != nil {
		t.Fatal(err)
	}
	wantNoKernels(t, rs)

	// Session 2: resume; then the server is killed and restarted.
	c = nil
	c.raw(`  - expect:
      has: [{role: user, text: "Where am I?"}]
    reply: [{call: {name: ipybox_execute_ipython_cell, args: {code: ` + jsonString(`import glob, os
ends = [open(p).read().strip()[-3:] for p in glob.glob(".freeact/sessions/*/tool-results/*.txt")]
print("resumed:", "END" in ends, open("notes/a.txt").read().split())
z = 1`) + `}}}]`)
	c.text("Resumed.")
	c.code(`print("z kept:", "z" in dir(), open("notes/a.txt").read().split())`)
	c.text("After the restart.")
	a, _ = startRemoteAgent(t, ws, c, agent.WithSessionID(id))
	stopped = false
	wantOutput(t, remoteResults(t, a, "Read it again.", 1)[0], "ipybox_execute_ipython_cell", "resumed: True ['one', 'TWO']")
	rs.Kill()
	rs.Restart()
	wantOutput(t, remoteResults(t, a, "Again.", 1)[0], "ipybox_execute_ipython_cell", "z kept: False ['one', 'TWO']")
	stopped = true
	if err := a.Stop(); err != nil {
		t.Fatal(err)
	}
	wantNoKernels(t, rs)

	// Session 3, through a proxy: a one-second blip in the middle of a
	// cell keeps the kernel and the cell's output; an outage during Stop
	// still shuts the kernel down.
	proxy := remotetest.NewProxy(t, strings.TrimSuffix(strings.SplitN(rs.URL, "//", 2)[1], "/"))
	scheme := strings.SplitN(rs.URL, ":", 2)[0]
	writeConfig(scheme + "://" + proxy.Addr + "/")
	c = nil
	c.code(`x = 42`)
	c.code(`import time
print("before", flush=True)
time.sleep(0.5)
print("during", flush=True)  # while the connection is down: the server keeps it
time.sleep(2.5)
print("after")`)
	c.code(`print("x is", x)`)
	c.text("Survived.")
	a, _ = startRemoteAgent(t, ws, c)
	stopped = false
	blipped := false
	events = remoteTurn(t, a, "Blip.", nil, func(text string) {
		if strings.Contains(text, "before") && !blipped {
			blipped = true
			proxy.Blip(time.Second)
		}
	})
	out = outputs(events)
	if !blipped || len(out) != 3 {
		t.Fatalf("blip turn: %s", describe(events))
	}
	wantOutput(t, out[1], "ipybox_execute_ipython_cell", "before\nduring\nafter")
	wantOutput(t, out[2], "ipybox_execute_ipython_cell", "x is 42")
	proxy.Blip(3 * time.Second)
	stopped = true
	if err := a.Stop(); err != nil {
		t.Fatal(err)
	}
	wantNoKernels(t, rs)
}
