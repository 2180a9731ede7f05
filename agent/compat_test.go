package agent_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"github.com/freeact/desktop/agent/mcpglue"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/apigen"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/agent/model/pydanticai"
	"github.com/freeact/desktop/agent/permission"
	"github.com/freeact/desktop/internal/testenv"
)

// Workspaces made by the real Python freeact (agent/testdata/freeact, see
// scripts/compat/make-fixtures.sh) open unchanged, run a turn and resume
// their session.

// fixtureSessions are the ids of the sessions the fixtures hold.
var fixtureSessions = map[string]string{
	"0.10.12": "10101010-0000-4000-8000-000000000010",
	"0.11.2":  "11111111-0000-4000-8000-000000000011",
}

// logBuffer collects log records for assertions.
type logBuffer struct{ lines chan string }

func (l *logBuffer) Write(p []byte) (int, error) {
	select {
	case l.lines <- string(p):
	default:
	}
	return len(p), nil
}

func (l *logBuffer) String() string {
	var b strings.Builder
	for {
		select {
		case s := <-l.lines:
			b.WriteString(s)
		default:
			return b.String()
		}
	}
}

// sessionLines reads the envelopes' messages of a session file.
func sessionLines(t *testing.T, file string) []json.RawMessage {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []json.RawMessage
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var env struct {
			Message json.RawMessage `json:"message"`
		}
		if err := json.Unmarshal(sc.Bytes(), &env); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		out = append(out, env.Message)
	}
	return out
}

func TestFreeactWorkspaces(t *testing.T) {
	// The workspaces' MCP server is `python demo_server.py`, run with the
	// Python that has the mcp package, as it is for freeact's users.
	t.Setenv("PATH", filepath.Dir(testenv.PythonMCP(t, "1.30"))+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, version := range []string{"0.10.12", "0.11.2"} {
		t.Run(version, func(t *testing.T) { freeactWorkspace(t, version) })
	}
}

func freeactWorkspace(t *testing.T, version string) {
	ws := testenv.FreeactFixture(t, version)
	id := fixtureSessions[version]
	mainFile := filepath.Join(ws, ".freeact", "sessions", id, "main.jsonl")
	before := testenv.Snapshot(t, ws)
	oldSession := before[filepath.ToSlash(filepath.Join(".freeact", "sessions", id, "main.jsonl"))]
	freeactModules := filepath.Join(ws, ".freeact", "generated", "mcptools", "demo")
	if !apigen.Foreign(freeactModules) {
		t.Fatal("the fixture's modules are not freeact's")
	}

	code := "from mcptools.demo import add\nprint('sum', add.run(add.Params(a=2, b=40)).result)"
	if version == "0.11.2" {
		// The run_parsed freeact's output-parsers skill added, kept when
		// the module was generated again.
		code += "\nfrom mcptools.demo import sdk_version as v\nr = v.run_parsed(v.Params())\nprint('sdk', r.major, r.minor)"
	}
	codeJSON, _ := json.Marshal(code)
	sc := fmt.Sprintf(`
name: freeact %[1]s workspace
turns:
  - expect:
      tools: [demo_add, ipybox_execute_ipython_cell]
      system_contains: run_parsed
      has:
        - {role: user, text: "What is 6 times 7? Use Python."}
        - {role: model, call: ipybox_execute_ipython_cell, signature: "sig:math-call"}
        - {role: user, response: ipybox_execute_ipython_cell, output: "42"}
        - {role: model, call: filesystem_read_text_file, signature: "sig:notes-call"}
        - {role: user, response: filesystem_read_text_file, output: "Buy milk"}
      last: [{role: user, text: "Use the demo tools from code."}]
    reply:
      - thought: "I call the demo server's tools from code."
        signature: our-thought
      - call: {name: ipybox_execute_ipython_cell, args: {code: %[2]s}}
        signature: our-call
  - expect:
      last: [{role: user, response: ipybox_execute_ipython_cell, output: "sum 42"}]
    reply: [{text: "2 + 40 = 42."}]
`, version, codeJSON)
	// Sets GEMINI_API_KEY, which freeact 0.10's default search server
	// needs (freeact refuses to start without it too).
	fake := modeltest.UseGemini(t, mustScenario(t, sc))
	logs := &logBuffer{lines: make(chan string, 1000)}
	w, err := agent.OpenWorkspace(ws, agent.WorkspaceOptions{Log: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	a, err := w.StartAgent(ctx, w.Config, agent.WithDirs(testDirs), agent.WithKernelServer(server(t)), agent.WithSessionID(id))
	if err != nil {
		t.Fatal(err)
	}
	// freeact's settings and rule files are protected like agent.json:
	// writing them is asked every time.
	for _, f := range []string{"config.toml", "permissions.toml", "agent.json"} {
		c := permission.Call{Type: permission.TypeFileWrite, ToolName: "filesystem_write_text_file", Path: ".freeact/" + f}
		if v := w.Permissions.Evaluate(c); !v.Protected {
			t.Errorf("writing .freeact/%s is not protected: %+v", f, v)
		}
	}
	events := run(t, a, "Use the demo tools from code.", nil)
	out := of[*agent.CodeExecutionOutput](events)
	if len(out) != 1 || !strings.Contains(out[0].Text, "sum 42") {
		t.Fatalf("code output: %s", describe(events))
	}
	if version == "0.11.2" && !strings.Contains(out[0].Text, "sdk 1 30") {
		t.Errorf("run_parsed: %q", out[0].Text)
	}
	ptc := slices.ContainsFunc(of[*agent.ApprovalRequest](events), func(r *agent.ApprovalRequest) bool {
		g, ok := r.ToolCall.(agent.GenericCall)
		return ok && g.PTC && g.ToolName == "demo_add"
	})
	if !ptc {
		t.Errorf("no programmatic call of demo_add: %s", describe(events))
	}
	for _, req := range fake.Requests() {
		if slices.ContainsFunc(req.Tools, func(tl model.Tool) bool { return tl.Name == "demo_sdk_version" }) {
			t.Error("demo_sdk_version offered although the server entry excludes it")
		}
	}
	if err := a.Stop(); err != nil {
		t.Fatal(err)
	}

	// Nothing of freeact's was changed but what must: the session got the
	// turn appended in freeact's own format, and the modules generated for
	// mcpygen were generated again for this app, the old ones backed up.
	for name, content := range before {
		now, err := os.ReadFile(filepath.Join(ws, filepath.FromSlash(name)))
		switch {
		case strings.HasSuffix(name, "main.jsonl"):
			if err != nil || !strings.HasPrefix(string(now), content) || len(now) == len(content) {
				t.Errorf("session file not appended to: %v", err)
			}
		case strings.Contains(name, "generated/mcptools/demo/"):
			backup, berr := os.ReadFile(filepath.Join(ws, mcpglue.BackupDir, "demo", filepath.Base(name)))
			if berr != nil || string(backup) != content {
				t.Errorf("backup of %s: %v", name, berr)
			}
		case err != nil || string(now) != content:
			t.Errorf("%s was changed (%v)", name, err)
		}
	}
	for _, f := range []string{"agent.json", "permissions.json"} {
		if _, err := os.Stat(filepath.Join(ws, ".freeact", f)); err == nil && version == "0.11.2" {
			t.Errorf("%s written beside freeact 0.11's files", f)
		}
	}
	if apigen.Foreign(freeactModules) {
		t.Error("freeact's modules were not generated again")
	}
	lines := sessionLines(t, mainFile)
	oldCount := strings.Count(oldSession, "\n")
	if len(lines) != oldCount+4 {
		t.Fatalf("session has %d messages, want %d + 4", len(lines), oldCount)
	}
	for _, l := range lines[oldCount:] {
		if !pydanticai.IsMessage(l) {
			t.Errorf("appended in another format: %.200s", l)
		}
	}
	log := logs.String()
	for _, want := range []string{"generated again for this app", "session written by the Python freeact"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if version == "0.10.12" && !strings.Contains(log, "bundled with the Python freeact") {
		t.Errorf("no note on freeact's bundled search server:\n%s", log)
	}

	// Resume: the whole conversation comes back, freeact's turns and ours.
	resumed := fmt.Sprintf(`
name: resume freeact %s session
turns:
  - expect:
      has:
        - {role: model, call: filesystem_read_text_file, signature: "sig:notes-call"}
        - {role: model, call: ipybox_execute_ipython_cell, signature: our-call}
        - {role: model, text: "2 + 40 = 42."}
      last: [{role: user, text: "Thanks."}]
    reply: [{text: "You are welcome."}]
`, version)
	modeltest.UseGemini(t, mustScenario(t, resumed))
	w2, err := agent.OpenWorkspace(ws, agent.WorkspaceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a2, err := w2.StartAgent(ctx, w2.Config, agent.WithDirs(testDirs), agent.WithKernelServer(server(t)), agent.WithSessionID(id))
	if err != nil {
		t.Fatal(err)
	}
	defer a2.Stop()
	if n := len(a2.History()); n != 12 {
		t.Errorf("resumed history has %d messages, want 12", n)
	}
	run(t, a2, "Thanks.", nil)
}

func mustScenario(t *testing.T, yaml string) modeltest.Scenario {
	t.Helper()
	sc, err := modeltest.ParseScenario([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// filesystem_read_media_file passes a PDF to a model that reads PDFs
// (Gemini), beside the function response, as it passes images.
func TestReadMediaPassesPDF(t *testing.T) {
	a, _, ws := fakeKernels(nil).start(t, `
name: read a PDF
turns:
  - reply: [{call: {name: filesystem_read_media_file, args: {path: paper.pdf}}}]
  - expect:
      last:
        - {role: user, response: filesystem_read_media_file, output: "A PDF document paper.pdf (application/pdf"}
        - {role: user, mime: application/pdf}
    reply: [{text: "It is a one-page paper."}]
`)
	if err := os.WriteFile(filepath.Join(ws, "paper.pdf"), []byte("%PDF-1.7\n%%EOF\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	events := run(t, a, "What is paper.pdf?", nil)
	if r := of[*agent.Response](events); len(r) == 0 || r[len(r)-1].Text != "It is a one-page paper." {
		t.Fatalf("events: %s", describe(events))
	}
}
