package desktop

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/freeact/desktop/agent/history"
	"github.com/freeact/desktop/agent/longsession"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/app/adapter"
	"github.com/freeact/desktop/app/internal/fronttest"
	"github.com/freeact/desktop/internal/appdirs"
	"github.com/freeact/desktop/internal/testenv"
)

func meta(agentID, corr string) agent.Meta { return agent.Meta{AgentID: agentID, CorrelationID: corr} }

func TestAppendCoalesced(t *testing.T) {
	out := func(corr, kind, text string) agent.Event {
		return &agent.CodeExecutionOutputChunk{Meta: meta("main", corr), Kind: kind, Text: text}
	}
	resp := func(a, text string) agent.Event { return &agent.ResponseChunk{Meta: meta(a, ""), Text: text} }
	tests := []struct {
		name string
		in   []agent.Event
		want []string // event type + text of each result
	}{
		{"adjacent response chunks merge", []agent.Event{resp("main", "a"), resp("main", "b"), resp("main", "c")}, []string{"ResponseChunk:abc"}},
		{"agents stay apart", []agent.Event{resp("main", "a"), resp("sub-1", "b"), resp("main", "c")}, []string{"ResponseChunk:a", "ResponseChunk:b", "ResponseChunk:c"}},
		{"output of one call and kind merges", []agent.Event{out("c1", "stdout", "1\n"), out("c1", "stdout", "2\n")}, []string{"CodeExecutionOutputChunk:1\n2\n"}},
		{"stderr interleaved keeps order", []agent.Event{out("c1", "stdout", "1"), out("c1", "stderr", "e"), out("c1", "stdout", "2")}, []string{"CodeExecutionOutputChunk:1", "CodeExecutionOutputChunk:e", "CodeExecutionOutputChunk:2"}},
		{"calls stay apart", []agent.Event{out("c1", "stdout", "1"), out("c2", "stdout", "2")}, []string{"CodeExecutionOutputChunk:1", "CodeExecutionOutputChunk:2"}},
		{"thoughts then response", []agent.Event{&agent.ThoughtsChunk{Meta: meta("main", ""), Text: "t1"}, &agent.ThoughtsChunk{Meta: meta("main", ""), Text: "t2"}, resp("main", "r")}, []string{"ThoughtsChunk:t1t2", "ResponseChunk:r"}},
		{"a complete event is never merged", []agent.Event{resp("main", "a"), &agent.Response{Meta: meta("main", ""), Text: "a"}, resp("main", "b")}, []string{"ResponseChunk:a", "Response:a", "ResponseChunk:b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first := tt.in[0]
			before, _ := agent.MarshalEvent(first)
			var batch []queued
			for _, ev := range tt.in {
				batch = appendCoalesced(batch, queued{ev: ev})
			}
			var got []string
			for _, q := range batch {
				var f struct{ Type, Text string }
				b, _ := agent.MarshalEvent(resolve(q).ev)
				_ = json.Unmarshal(b, &f)
				got = append(got, f.Type+":"+f.Text)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if after, _ := agent.MarshalEvent(first); string(after) != string(before) {
				t.Errorf("the first event was mutated: %s", after)
			}
		})
	}
}

func TestEncodeBatchAddsRequestID(t *testing.T) {
	req := &agent.InputRequest{Meta: meta("sub-ab12", "c9"), Prompt: "Name? "}
	raw, err := encodeBatch([]queued{{ev: req, requestID: "r7"}, {raw: json.RawMessage(`{"type":"TurnEnded"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(raw[0], &got); err != nil {
		t.Fatalf("%s: %v", raw[0], err)
	}
	if got["request_id"] != "r7" || got["type"] != "InputRequest" || got["agent_id"] != "sub-ab12" || got["correlation_id"] != "c9" || got["prompt"] != "Name? " {
		t.Errorf("encoded %s", raw[0])
	}
	if string(raw[1]) != `{"type":"TurnEnded"}` {
		t.Errorf("synthetic event changed: %s", raw[1])
	}
}

func TestClipOutputKeepsTheTail(t *testing.T) {
	long := strings.Repeat("é", maxWindowOutput) // two bytes each
	q := clipOutput(queued{ev: &agent.CodeExecutionOutput{Meta: meta("main", "c1"), Text: long + "END"}})
	out := q.ev.(*agent.CodeExecutionOutput)
	if !strings.HasSuffix(out.Text, "END") || len(out.Text) > maxWindowOutput || !utf8.ValidString(out.Text) {
		t.Errorf("clipped to %d bytes, valid %v", len(out.Text), utf8.ValidString(out.Text))
	}
	if q.dropped != len(long)+3-len(out.Text) {
		t.Errorf("dropped = %d", q.dropped)
	}
	raw, err := encodeBatch([]queued{q})
	if err != nil || !strings.HasPrefix(string(raw[0]), fmt.Sprintf(`{"dropped_chars":%d,"dropped_lines":0,"type":"CodeExecutionOutput"`, q.dropped)) {
		t.Errorf("encoded %.80s, %v", raw[0], err)
	}
	short := queued{ev: &agent.CodeExecutionOutput{Meta: meta("main", "c1"), Text: "ok"}}
	if c := clipOutput(short); c.ev != short.ev || c.dropped != 0 {
		t.Error("a short output was changed")
	}
}

func TestResolveKeepsTheTailOfAFlood(t *testing.T) {
	var batch []queued
	line := strings.Repeat("x", 99) + "\n"
	n := 2 * maxWindowOutput / len(line)
	for i := 0; i < n; i++ {
		batch = appendCoalesced(batch, queued{ev: &agent.CodeExecutionOutputChunk{Meta: meta("main", "c1"), Kind: "stdout", Text: line}})
	}
	if len(batch) != 1 {
		t.Fatalf("%d events, want 1", len(batch))
	}
	q := resolve(batch[0])
	text := q.ev.(*agent.CodeExecutionOutputChunk).Text
	if len(text) != maxWindowOutput && len(text) > maxWindowOutput {
		t.Errorf("window text is %d bytes", len(text))
	}
	if got := strings.Count(text, "\n") + q.droppedLines; got != n {
		t.Errorf("lines shown + dropped = %d, want %d", got, n)
	}
	if q.dropped+len(text) != n*len(line) {
		t.Errorf("dropped %d + shown %d != %d", q.dropped, len(text), n*len(line))
	}
}

// A flood of chunks becomes a few merged batches; other events go out at
// once and keep their order.
func TestPumpCoalescesAFlood(t *testing.T) {
	in := make(chan queued)
	var mu sync.Mutex
	var batches [][]queued
	done := make(chan struct{})
	go func() {
		pump(in, 20*time.Millisecond, func(b []queued) {
			mu.Lock()
			batches = append(batches, b)
			mu.Unlock()
		})
		close(done)
	}()
	const n = 20000
	for i := 0; i < n; i++ {
		in <- queued{ev: &agent.CodeExecutionOutputChunk{Meta: meta("main", "c1"), Kind: "stdout", Text: "x\n"}}
	}
	in <- queued{ev: &agent.CodeExecutionOutput{Meta: meta("main", "c1"), Text: "done"}}
	close(in)
	<-done
	total, events := 0, 0
	for _, b := range batches {
		for _, q := range b {
			q = resolve(q)
			events++
			if c, ok := q.ev.(*agent.CodeExecutionOutputChunk); ok {
				total += strings.Count(c.Text, "\n")
			}
		}
	}
	if total != n {
		t.Errorf("lines delivered = %d, want %d", total, n)
	}
	if events > n/10 {
		t.Errorf("%d events reached the window for %d chunks: not coalesced", events, n)
	}
	last := batches[len(batches)-1]
	if _, ok := last[len(last)-1].ev.(*agent.CodeExecutionOutput); !ok {
		t.Errorf("the final output is not last")
	}
}

func TestPumpFlushesChunksWithinTheInterval(t *testing.T) {
	in := make(chan queued)
	got := make(chan []queued, 4)
	go pump(in, 30*time.Millisecond, func(b []queued) { got <- b })
	defer close(in)
	start := time.Now()
	in <- queued{ev: &agent.ResponseChunk{Meta: meta("main", ""), Text: "Hel"}}
	in <- queued{ev: &agent.ResponseChunk{Meta: meta("main", ""), Text: "lo"}}
	// Without a flush on the interval the chunks wait for more input
	// forever; the bound is loose so that a loaded machine passes.
	b := testenv.Receive(t, got, time.Minute, "a flush of the chunks without more input")
	if len(b) != 1 || resolve(b[0]).ev.(*agent.ResponseChunk).Text != "Hello" {
		t.Errorf("batch = %+v", b)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a 30 ms interval flushed after %v", d)
	}
}

func TestHistoryEvents(t *testing.T) {
	args := json.RawMessage(`{"code":"print(1)"}`)
	again := model.UserText("again")
	again.Parts = append([]model.Part{{Text: history.RevertNotePrefix + "The user reverted ...</workspace-revert>"}}, again.Parts...)
	msgs := []model.Message{
		model.UserMessage("plot it", model.Image{MIMEType: "image/png", Data: []byte{1, 2}}),
		{Role: model.RoleModel, Model: "google:g", Usage: &model.Usage{InputTokens: 10, OutputTokens: 2}, Parts: []model.Part{
			{Text: "hmm", Thought: true},
			{FunctionCall: &model.FunctionCall{ID: "c1", Name: agent.ExecuteTool, Args: args}},
		}},
		model.ToolResults(model.FunctionResponse{ID: "c1", Name: agent.ExecuteTool, Output: "1"}),
		{Role: model.RoleModel, Parts: []model.Part{{Text: "Done, but"}}, Stop: model.StopMaxTokens},
		again,
	}
	cost := 0.5
	x := historyExtras{
		compactions: []longsession.HistoryCompaction{{Index: 4, Event: agent.Compacted{Meta: agent.Meta{AgentID: "main"}, Summary: "S"}}},
		changes:     map[string]*agent.FilesChanged{"c1": {Meta: agent.Meta{AgentID: "main", CorrelationID: "c1"}, Checkpoint: "k1"}},
		usage:       &agent.SessionUsage{Meta: agent.Meta{AgentID: "main"}, Cost: 0.5},
		price:       func(string, model.Usage) *float64 { return &cost },
	}
	var types, prompts []string
	for _, raw := range historyEvents(msgs, x) {
		var f struct {
			Type   string   `json:"type"`
			Images []string `json:"images"`
			Text   string   `json:"text"`
			Turn   int      `json:"turn"`
			Cost   *float64 `json:"cost"`
		}
		if err := json.Unmarshal(raw, &f); err != nil {
			t.Fatal(err)
		}
		if f.Type == "UserMessage" && len(f.Images) > 0 && !strings.HasPrefix(f.Images[0], "data:image/png;base64,") {
			t.Errorf("image = %q", f.Images[0])
		}
		if f.Type == "UserMessage" {
			prompts = append(prompts, fmt.Sprintf("%d:%s", f.Turn, f.Text))
		}
		if f.Type == "Usage" && (f.Cost == nil || *f.Cost != 0.5) {
			t.Errorf("usage cost %v", f.Cost)
		}
		types = append(types, f.Type)
	}
	want := "TurnStarted UserMessage Thoughts ToolCall Usage ToolOutput FilesChanged Response ReplyCut TurnEnded Compacted TurnStarted UserMessage TurnEnded SessionUsage"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("events:\n got %s\nwant %s", got, want)
	}
	// The note on reverted files is for the model, not part of the prompt.
	if got := strings.Join(prompts, "|"); got != "1:plot it|2:again" {
		t.Errorf("prompts %q", got)
	}
}

// A resumed conversation shows each call's time and outcome as the live
// one did: a rejection's end of the turn, the time the session kept, the
// notice of a reply cut at the token limit, the failure of a turn that
// failed after its actions, and a failed "Compact now" with its paid call.
func TestHistoryEventsKeepTimesAndOutcomes(t *testing.T) {
	args := json.RawMessage(`{"code":"1/0"}`)
	msgs := []model.Message{
		model.UserText("print"),
		{Role: model.RoleModel, Parts: []model.Part{{FunctionCall: &model.FunctionCall{ID: "c0", Name: agent.ExecuteTool, Args: args}}}},
		model.ToolResults(model.FunctionResponse{ID: "c0", Name: agent.ExecuteTool, Output: agent.RejectedText, IsError: true}),
		model.UserText("divide"),
		{Role: model.RoleModel, Parts: []model.Part{{FunctionCall: &model.FunctionCall{ID: "c1", Name: agent.ExecuteTool, Args: args}}}},
		model.ToolResults(model.FunctionResponse{ID: "c1", Name: agent.ExecuteTool, Output: "ZeroDivisionError", IsError: true, ElapsedMS: 740}),
		model.UserText(agent.FailedNotePrefix + "The turn ended early: the next step failed (HTTP 400: bad request). The actions above ran and their results are real: the kernel and the files are as they left them.\n</turn-failed>"),
		model.UserText("write"),
		{Role: model.RoleModel, Stop: model.StopMaxTokens, Usage: &model.Usage{OutputTokens: 5}, Parts: []model.Part{{Text: "The start of"}}},
	}
	// A "Compact now" after the last turn failed after its paid call.
	// One before it was tried again: only its cost shows.
	fail := func(text string, retried bool) longsession.FailedCompaction {
		return longsession.FailedCompaction{
			Index: len(msgs), Failed: agent.Failed{Meta: agent.Meta{AgentID: "main"}, Error: text, Action: agent.ActionCompact},
			Model: "google:g", Usage: []model.Usage{{InputTokens: 5000, OutputTokens: 600}}, Retried: retried,
		}
	}
	x := historyExtras{failed: []longsession.FailedCompaction{fail("tried again", true), fail("summary cut", false)}}
	var got []string
	for _, raw := range historyEvents(msgs, x) {
		var f struct {
			Type      string `json:"type"`
			ElapsedMS int64  `json:"elapsed_ms"`
			IsError   bool   `json:"is_error"`
			Error     string `json:"error"`
			Kept      bool   `json:"kept"`
			Output    int    `json:"output_tokens"`
			Text      string `json:"text"`
		}
		if err := json.Unmarshal(raw, &f); err != nil {
			t.Fatal(err)
		}
		switch f.Type {
		case "ToolOutput":
			got = append(got, fmt.Sprintf("ToolOutput %d %v", f.ElapsedMS, f.IsError))
		case "Failed":
			got = append(got, fmt.Sprintf("Failed %q %v", f.Error, f.Kept))
		case "ReplyCut":
			got = append(got, fmt.Sprintf("ReplyCut %d", f.Output))
		case "UserMessage", "Usage", "TurnEnded":
			got = append(got, f.Type)
		case "Response":
			got = append(got, "Response "+f.Text)
		}
	}
	want := []string{
		"UserMessage", "ToolOutput 0 true", "Response " + agent.RejectedText, "TurnEnded",
		"UserMessage", "ToolOutput 740 true", `Failed "HTTP 400: bad request" true`, "TurnEnded",
		"UserMessage", "Response The start of", "ReplyCut 5", "Usage", "TurnEnded",
		"Usage", "TurnEnded",
		"Usage", `Failed "summary cut" false`, "TurnEnded",
	}
	if !slices.Equal(got, want) {
		t.Errorf("events:\n got %q\nwant %q", got, want)
	}
}

func TestSessionTitle(t *testing.T) {
	u, _ := json.Marshal(model.UserText("  Plot sin(x)  "))
	if title, ok := adapter.SessionTitle(u); !ok || title != "Plot sin(x)" {
		t.Errorf("title = %q, %v", title, ok)
	}
	r, _ := json.Marshal(model.ToolResults(model.FunctionResponse{ID: "1", Name: "x", Output: "y"}))
	if _, ok := adapter.SessionTitle(r); ok {
		t.Error("a tool result is not a title")
	}
}

// The form's values are checked by agent.json's own rules, key by key, and
// saving writes only the keys of one tab.
func TestCheckAndSaveSettings(t *testing.T) {
	d, _, ws := testDesktop(t)
	if errs := d.CheckSettings(map[string]string{"model": `"gemini-3-flash-preview"`, "execution_timeout": "60", "images_dir": "null"}); errs == nil || len(errs) != 0 {
		t.Errorf("valid values: %#v, want an empty list", errs)
	}
	for _, tt := range []struct {
		name          string
		values        map[string]string
		key, path     string
		wantInMessage string
	}{
		{"words for a number", map[string]string{"execution_timeout": `"sixty"`}, "execution_timeout", "", "want a positive number of seconds"},
		{"not JSON", map[string]string{"max_subagents": "three"}, "max_subagents", "", "not valid JSON"},
		{"invalid value", map[string]string{"tool_search": `"fuzzy"`}, "tool_search", "", `"basic", "hybrid" or "off"`},
		{"out of range", map[string]string{"max_subagents": "0"}, "max_subagents", "", "1 or more"},
		{"unknown key", map[string]string{"colour": `"red"`}, "colour", "", "unknown"},
		{"server field", map[string]string{"mcp_servers": `{"fs": {"url": "http://h", "args": ["x"]}}`}, "mcp_servers", "fs.args", `only apply to servers with "command"`},
		{"model setting", map[string]string{"model_settings": `{"top_p": 2}`}, "model_settings", "top_p", "between 0 and 1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			errs := d.CheckSettings(tt.values)
			if len(errs) != 1 || errs[0].Key != tt.key || errs[0].Path != tt.path || !strings.Contains(errs[0].Message, tt.wantInMessage) {
				t.Errorf("errors %+v; want one on %s at %q containing %q", errs, tt.key, tt.path, tt.wantInMessage)
			}
		})
	}

	if _, err := d.OpenWorkspace(ws, ""); err != nil {
		t.Fatal(err)
	}
	defer d.shutdown()
	file := filepath.Join(ws, ".freeact", config.AgentFile)
	before, _ := os.ReadFile(file)
	if errs, err := d.SaveSettings(map[string]string{"execution_timeout": `"sixty"`, "max_subagents": "2"}); err != nil || len(errs) != 1 {
		t.Fatalf("invalid save: %+v %v", errs, err)
	}
	if after, _ := os.ReadFile(file); string(after) != string(before) {
		t.Fatalf("an invalid save wrote agent.json:\n%s", after)
	}
	if errs, err := d.SaveSettings(map[string]string{"execution_timeout": "60"}); err != nil || len(errs) != 0 {
		t.Fatalf("save: %+v %v", errs, err)
	}
	cfg, err := config.Load(ws, config.LoadOptions{})
	if err != nil || *cfg.Options.ExecutionTimeout != 60 || cfg.Options.EnableSubagents {
		t.Fatalf("saved options %+v, %v (enable_subagents from the file must stay false)", cfg.Options, err)
	}
	// A ${VAR} nothing sets would keep the workspace from loading: it is
	// an error of its key, in the check as typed and at the save; a key
	// stored in the app replaces it.
	env := map[string]string{"kernel_env": `{"TOKEN": "${FREEACT_TEST_UNSET_TOKEN}"}`}
	if errs := d.CheckSettings(env); len(errs) != 1 || errs[0].Key != "kernel_env" || errs[0].Path != "TOKEN" {
		t.Errorf("check of an unset reference: %+v", errs)
	}
	if errs, err := d.SaveSettings(env); err != nil || len(errs) != 1 {
		t.Errorf("save of an unset reference: %+v %v", errs, err)
	}
	if _, err := d.SetAPIKey("FREEACT_TEST_UNSET_TOKEN", "t"); err != nil {
		t.Fatal(err)
	}
	if errs, err := d.SaveSettings(env); err != nil || len(errs) != 0 {
		t.Errorf("save with the key stored: %+v %v", errs, err)
	}
}

func TestCompletePath(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"data/sales.csv", "data/plot.png", "docs/a.md", ".hidden/x", "d.txt"} {
		full := filepath.Join(root, p)
		_ = os.MkdirAll(filepath.Dir(full), 0o755)
		_ = os.WriteFile(full, []byte("x"), 0o644)
	}
	names := func(es []PathEntry) string {
		var s []string
		for _, e := range es {
			s = append(s, e.Path)
		}
		return strings.Join(s, ",")
	}
	for prefix, want := range map[string]string{
		"":        "data/,docs/,d.txt",
		"d":       "data/,docs/,d.txt",
		"data/":   "data/plot.png,data/sales.csv",
		"data/p":  "data/plot.png",
		".h":      ".hidden/",
		"../":     "",
		"nothing": "",
	} {
		got, err := completePath(root, prefix)
		if err != nil {
			t.Fatal(err)
		}
		if names(got) != want {
			t.Errorf("completePath(%q) = %s, want %s", prefix, names(got), want)
		}
	}
	got, _ := completePath(root, "data/plot")
	if len(got) != 1 || !got[0].Image {
		t.Errorf("plot.png not marked as an image: %+v", got)
	}
}

// testDesktop returns bindings with private XDG folders over a new
// workspace whose agent.json uses the test Python and no subagents. The
// workspace is not opened yet.
// scenarioDesktop opens a test workspace in a Desktop whose model plays
// the modeltest scenario yaml, shut down when the test ends, and waits for
// its kernel.
func scenarioDesktop(t *testing.T, yaml string) (*Desktop, *fakeHost, string) {
	t.Helper()
	sc, err := modeltest.ParseScenario([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	modeltest.UseGemini(t, sc)
	d, h, ws := testDesktop(t)
	if _, err := d.OpenWorkspace(ws, ""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.shutdown)
	h.waitState(t, KernelReady)
	return d, h, ws
}

func testDesktop(t *testing.T) (*Desktop, *fakeHost, string) {
	t.Helper()
	opts := map[string]any{"python": testenv.Python(t), "enable_subagents": false}
	dirs := appdirs.In(t.TempDir())
	ws := t.TempDir()
	cfg, _ := json.Marshal(opts)
	if err := os.MkdirAll(filepath.Join(ws, ".freeact"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".freeact", "agent.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	h := &fakeHost{}
	return &Desktop{build: adapter.Build{Dirs: dirs}, host: h, store: config.NewAppStore(dirs.Config), log: NewDesktop(adapter.Build{}).log}, h, ws
}

// fakeHost records what the bindings send to the window.
type fakeHost struct {
	mu     sync.Mutex
	events []json.RawMessage
	status []KernelStatus
	// workspaces are those of EventWorkspace; sent names every event in
	// the order sent.
	workspaces []WorkspaceInfo
	sent       []string
	titles     []string
	raised     int
	copied     []byte
	// pickedIn are the folders the folder dialog started in.
	pickedIn []string
	// picked and saveTo answer the file chooser and the save dialog.
	picked []string
	saveTo string
	seq    uint64
	// outOfOrder is set when a message did not carry the next number.
	outOfOrder bool
	// fileToOpen answers the open dialog.
	fileToOpen string
	// dialogDirs are the directories the file dialogs started in.
	dialogDirs []string
	// mcp are the MCP cards' payloads; wire is every message as JSON.
	mcp  []MCPRequest
	wire []string
}

func (h *fakeHost) emit(name string, msg any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := msg.(Message)
	if m.Seq != h.seq+1 {
		h.outOfOrder = true
	}
	h.seq = m.Seq
	h.sent = append(h.sent, name)
	if b, err := json.Marshal(m); err == nil {
		h.wire = append(h.wire, string(b))
	}
	data := m.Data
	switch name {
	case EventAgent:
		h.events = append(h.events, data.([]json.RawMessage)...)
	case EventKernel:
		h.status = append(h.status, data.(KernelStatus))
	case EventWorkspace:
		h.workspaces = append(h.workspaces, data.(WorkspaceInfo))
	case EventMCP:
		h.mcp = append(h.mcp, data.(MCPRequest))
	}
}
func (h *fakeHost) pickDirectory(_, dir string) (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.pickedIn = append(h.pickedIn, dir)
	return "", nil
}
func (h *fakeHost) saveFile(_, dir, _ string) (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.dialogDirs = append(h.dialogDirs, dir)
	return h.saveTo, nil
}
func (h *fakeHost) openFile(_, dir, _, _ string) (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.dialogDirs = append(h.dialogDirs, dir)
	return h.fileToOpen, nil
}
func (h *fakeHost) pickFiles(string, string, []runtime.FileFilter) ([]string, error) {
	return h.picked, nil
}
func (h *fakeHost) copyImage(data []byte) error {
	h.mu.Lock()
	h.copied = data
	h.mu.Unlock()
	return nil
}
func (h *fakeHost) raise() {
	h.mu.Lock()
	h.raised++
	h.mu.Unlock()
}

func (h *fakeHost) pasteImage() ([]byte, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.copied, nil
}
func (h *fakeHost) setTitle(title string) {
	h.mu.Lock()
	h.titles = append(h.titles, title)
	h.mu.Unlock()
}
func (h *fakeHost) context() context.Context { return context.Background() }

// waitEvent waits for an event of type typ after index from, and returns it
// decoded and its index.
func (h *fakeHost) waitEvent(t *testing.T, typ string, from int) (map[string]any, int) {
	t.Helper()
	var found map[string]any
	at := from
	testenv.Eventually(t, 90*time.Second, func() error {
		h.mu.Lock()
		evs := h.events
		h.mu.Unlock()
		for ; at < len(evs); at++ {
			var m map[string]any
			_ = json.Unmarshal(evs[at], &m)
			if typ == "" || m["type"] == typ {
				found = m
				return nil
			}
		}
		return fmt.Errorf("no %s event; got:\n%s", typ, h.dump())
	})
	return found, at
}

func (h *fakeHost) waitState(t *testing.T, state string) KernelStatus {
	t.Helper()
	var last KernelStatus
	testenv.Eventually(t, 2*time.Minute, func() error {
		h.mu.Lock()
		defer h.mu.Unlock()
		if len(h.status) > 0 {
			last = h.status[len(h.status)-1]
		}
		if last.State == state {
			return nil
		}
		if last.State == KernelError && state != KernelError {
			t.Fatalf("kernel error: %s", last.Message)
		}
		return fmt.Errorf("kernel never %s: %+v", state, h.status)
	})
	return last
}

func (h *fakeHost) statusCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.status)
}

// waitStatusAfter waits for a status in state among those sent after the
// first from.
func (h *fakeHost) waitStatusAfter(t *testing.T, state string, from int) KernelStatus {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		h.mu.Lock()
		st := append([]KernelStatus(nil), h.status[from:]...)
		h.mu.Unlock()
		for _, s := range st {
			if s.State == state {
				return s
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no %s status after %d: %+v", state, from, h.status)
	return KernelStatus{}
}

// countAfter counts the events of type typ after index from.
func (h *fakeHost) countAfter(typ string, from int) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, e := range h.events[from+1:] {
		var m map[string]any
		_ = json.Unmarshal(e, &m)
		if m["type"] == typ {
			n++
		}
	}
	return n
}

func (h *fakeHost) dump() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var s []string
	for _, e := range h.events {
		s = append(s, string(e))
	}
	return strings.Join(s, "\n")
}

// The bindings drive a real agent and kernel against the fake model: open a
// workspace, send, answer the approval and the cell's input() by request id,
// then resume the session in a new window.
func TestDesktopTurnWithApprovalAndInput(t *testing.T) {
	sc, err := modeltest.ParseScenario([]byte(`
turns:
  - reply:
      - call: {name: ipybox_execute_ipython_cell, args: {code: "name = input('Name? ')\nprint('hello', name)"}}
  - expect:
      last: [{response: ipybox_execute_ipython_cell, output: "hello Ada"}]
    reply: [{text: "Greeted Ada."}]
`))
	if err != nil {
		t.Fatal(err)
	}
	modeltest.UseGemini(t, sc)
	d, h, ws := testDesktop(t)
	info, err := d.OpenWorkspace(ws, "")
	if err != nil {
		t.Fatal(err)
	}
	if info.Created || info.Name != filepath.Base(ws) {
		t.Errorf("info = %+v", info)
	}
	if recent, _ := d.RecentWorkspaces(); len(recent) != 1 || recent[0] != ws {
		t.Errorf("recent = %v", recent)
	}
	ready := h.waitState(t, KernelReady)
	// The agent keeps its Jupyter files in the folders the desktop was
	// given, not the user's.
	if st, err := os.Stat(d.build.Dirs.Jupyter()); err != nil || !st.IsDir() {
		t.Errorf("no Jupyter folder in the desktop's own state folder: %v", err)
	}
	if ready.SessionID == "" {
		t.Error("no session id in the ready status")
	}
	if err := d.Send("Greet me", nil); err != nil {
		t.Fatal(err)
	}
	if err := d.Send("again", nil); err == nil {
		t.Error("a second Send during a turn was accepted")
	}
	appr, i := h.waitEvent(t, "ApprovalRequest", 0)
	if err := d.Approve(appr["request_id"].(string), "yes", ""); err != nil {
		t.Fatal(err)
	}
	if err := d.Approve(appr["request_id"].(string), "yes", ""); err == nil {
		t.Error("a second answer was accepted")
	}
	in, i := h.waitEvent(t, "InputRequest", i)
	if in["correlation_id"] != appr["correlation_id"] {
		t.Errorf("input request %v does not belong to the call %v", in["correlation_id"], appr["correlation_id"])
	}
	if err := d.ReplyInput(in["request_id"].(string), "Ada"); err != nil {
		t.Fatal(err)
	}
	out, i := h.waitEvent(t, "CodeExecutionOutput", i)
	if !strings.Contains(out["text"].(string), "hello Ada") {
		t.Errorf("output = %v", out["text"])
	}
	h.waitEvent(t, "TurnEnded", i)
	h.waitState(t, KernelReady)

	if _, err := d.ImageData("../outside.png"); err == nil || !strings.Contains(err.Error(), "outside the workspace") {
		t.Errorf("ImageData outside the workspace = %v", err)
	}
	if _, err := d.ImageData(".freeact/agent.json"); err == nil || !strings.Contains(err.Error(), "not an image") {
		t.Errorf("ImageData of a non-image = %v", err)
	}
	if err := d.OpenFile("/etc/passwd"); err == nil {
		t.Error("OpenFile outside the workspace was allowed")
	}
	path := os.Getenv("PATH")
	opens := fronttest.RecordOpens(t, 0)
	if err := d.OpenFile(".freeact/agent.json"); err != nil || len(opens()) != 1 || opens()[0][1] != filepath.Join(ws, ".freeact", "agent.json") {
		t.Errorf("OpenFile = %v, opened %q", err, opens())
	}
	// Without a program to open files, OpenFile says so (the open itself
	// would fail silently).
	t.Setenv("PATH", t.TempDir())
	if err := d.OpenFile(".freeact/agent.json"); err == nil || !strings.Contains(err.Error(), "xdg-open was not found") || len(opens()) != 1 {
		t.Errorf("OpenFile without xdg-open = %v, opened %q", err, opens())
	}
	// Show in folder, with no file manager on a session bus: without an
	// opener either it says so; with one it opens the file's folder.
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	if err := d.ShowInFolder(".freeact/agent.json"); err == nil || !strings.Contains(err.Error(), "no file manager answers and no program to open folders is installed") || len(opens()) != 1 {
		t.Errorf("ShowInFolder without a file manager or xdg-open = %v, opened %q", err, opens())
	}
	t.Setenv("PATH", path)
	opens = fronttest.RecordOpens(t, 0)
	if err := d.ShowInFolder(".freeact/agent.json"); err != nil || len(opens()) != 1 || opens()[0][1] != filepath.Join(ws, ".freeact") {
		t.Errorf("ShowInFolder = %v, opened %q, want the file's folder", err, opens())
	}
	if err := d.ShowInFolder("/etc/passwd"); err == nil {
		t.Error("ShowInFolder outside the workspace was allowed")
	}
	// Applying settings restarts the agent on the same session: the window
	// keeps the conversation (no Reset) and the new agent carries it on.
	_, before := h.waitEvent(t, "TurnEnded", 0)
	statuses := h.statusCount()
	if err := d.ApplySettings(); err != nil {
		t.Fatal(err)
	}
	h.waitStatusAfter(t, KernelReady, statuses)
	if h.countAfter("Reset", before) != 0 {
		t.Error("applying settings emptied the conversation in the window")
	}
	if ws, _ := d.current(); ws.agent == nil || ws.agent.SessionID() != ready.SessionID || len(ws.agent.History()) == 0 {
		t.Errorf("after ApplySettings the agent does not carry on session %s", ready.SessionID)
	}
	list, err := d.Sessions()
	if err != nil || len(list) != 1 || list[0].Title != "Greet me" || list[0].ID != ready.SessionID {
		t.Fatalf("sessions = %+v, %v", list, err)
	}

	// A new window resumes the session and re-renders its history.
	d.shutdown()
	h2 := &fakeHost{}
	d2 := &Desktop{build: d.build, host: h2, store: d.store, log: d.log}
	if _, err := d2.OpenWorkspace(ws, list[0].ID); err != nil {
		t.Fatal(err)
	}
	h2.waitState(t, KernelReady)
	u, _ := h2.waitEvent(t, "UserMessage", 0)
	if u["text"] != "Greet me" {
		t.Errorf("resumed prompt = %v", u["text"])
	}
	r, _ := h2.waitEvent(t, "Response", 0)
	if r["text"] != "Greeted Ada." {
		t.Errorf("resumed response = %v", r["text"])
	}
	d2.shutdown()
	if h.outOfOrder || h2.outOfOrder {
		t.Error("messages to the window were not numbered in order")
	}
}

// A kernel that cannot start shows the error; Retry starts it once the
// configuration is fixed.
func TestDesktopKernelErrorAndRetry(t *testing.T) {
	py := testenv.Python(t)
	t.Setenv("GEMINI_API_KEY", "fake-key")
	d, h, ws := testDesktop(t)
	write := func(python string) {
		cfg, _ := json.Marshal(map[string]any{"python": python, "enable_subagents": false})
		_ = os.WriteFile(filepath.Join(ws, ".freeact", "agent.json"), cfg, 0o644)
	}
	write(filepath.Join(ws, "no-such-python"))
	if _, err := d.OpenWorkspace(ws, ""); err != nil {
		t.Fatal(err)
	}
	defer d.shutdown()
	st := h.waitState(t, KernelError)
	if !strings.Contains(st.Message, "no-such-python") {
		t.Errorf("error = %q, want it to name the interpreter", st.Message)
	}
	if err := d.Send("hi", nil); err == nil || !strings.Contains(err.Error(), "Retry") {
		t.Errorf("Send while the kernel failed = %v", err)
	}
	write(py)
	if err := d.RetryKernel(); err != nil {
		t.Fatal(err)
	}
	h.waitState(t, KernelReady)
}

func TestTestMCPServerReportsWhyItFailed(t *testing.T) {
	ws := t.TempDir()
	cfg, err := config.Load(ws, config.LoadOptions{Lookup: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	h := &fakeHost{}
	d := &Desktop{host: h, store: config.NewAppStore(t.TempDir()), log: NewDesktop(adapter.Build{}).log}
	d.ws = &workspace{dir: ws, cfg: cfg, d: d}
	for _, tc := range []struct{ json, want string }{
		{`{"command": "/no/such/mcp-server"}`, "/no/such/mcp-server"},
		{`{"command": "x", "colour": 1}`, "not a valid server entry"},
		{`{"command": "${NOT_SET_ANYWHERE}"}`, "NOT_SET_ANYWHERE"},
	} {
		_, err := d.TestMCPServer("demo", tc.json)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("TestMCPServer(%s) = %v, want an error mentioning %q", tc.json, err, tc.want)
		}
	}
}

// A kernel that dies in a cell is reported, and the next turn runs on a
// fresh one. The cell dies a moment after it printed: what a kernel
// publishes just before os._exit may never leave it (libzmq sends from a
// thread of its own), with a Jupyter server in between as without.
func TestDesktopKernelDeathIsReported(t *testing.T) {
	sc, err := modeltest.ParseScenario([]byte(`
turns:
  - reply: [{call: {name: ipybox_execute_ipython_cell, args: {code: "import os, time\nprint('printed first', flush=True)\ntime.sleep(1)\nos._exit(1)"}}}]
  - reply: [{text: "It died."}]
  - reply: [{call: {name: ipybox_execute_ipython_cell, args: {code: "print('alive')"}}}]
  - reply: [{text: "Alive again."}]
`))
	if err != nil {
		t.Fatal(err)
	}
	modeltest.UseGemini(t, sc)
	d, h, ws := testDesktop(t)
	if _, err := d.OpenWorkspace(ws, ""); err != nil {
		t.Fatal(err)
	}
	defer d.shutdown()
	h.waitState(t, KernelReady)
	approveAll := func(from int) int {
		for {
			ev, i := h.waitEvent(t, "", from)
			from = i + 1
			switch ev["type"] {
			case "ApprovalRequest":
				if err := d.Approve(ev["request_id"].(string), "yes", ""); err != nil {
					t.Fatal(err)
				}
			case "TurnEnded":
				return from
			}
		}
	}
	if err := d.Send("Crash it", nil); err != nil {
		t.Fatal(err)
	}
	next := approveAll(0)
	// What the cell printed is its output; only the death is the error.
	died, _ := h.waitEvent(t, "CodeExecutionOutput", 0)
	text, _ := died["text"].(string)
	errText, _ := died["error_text"].(string)
	if died["error"] != true || !strings.HasPrefix(text, "printed first\n") || !strings.Contains(errText, "the kernel died") || strings.Contains(errText, "printed first") || !strings.Contains(text, errText) {
		t.Errorf("the dead cell's output is %q with error text %q, want the printed line apart from the death", text, errText)
	}
	if strings.Contains(errText, "eavesdropping") {
		t.Errorf("the death's message quotes ipykernel's TCP warning: %q", errText)
	}
	st := h.waitState(t, KernelReady)
	if st.Message != msgRestartedAfterDeath {
		t.Errorf("status after the death = %+v", st)
	}
	sawDied := false
	h.mu.Lock()
	for _, s := range h.status {
		sawDied = sawDied || s.State == KernelDied
	}
	h.mu.Unlock()
	if !sawDied {
		t.Error("no died status")
	}
	if err := d.Send("Again", nil); err != nil {
		t.Fatal(err)
	}
	approveAll(next)
	out, _ := h.waitEvent(t, "CodeExecutionOutput", next)
	if !strings.Contains(out["text"].(string), "alive") {
		t.Errorf("output after the restart = %v", out["text"])
	}
}

// The workspace folder dialog starts in the user's documents folder
// (xdg.UserDirs), when it is there.
func TestPickWorkspaceStartsInDocuments(t *testing.T) {
	dirs := appdirs.In(t.TempDir())
	h := &fakeHost{}
	d := &Desktop{build: adapter.Build{Dirs: dirs}, host: h, store: config.NewAppStore(dirs.Config), log: NewDesktop(adapter.Build{}).log}
	if _, err := d.PickWorkspace(); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dirs.Documents, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := d.PickWorkspace(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"", dirs.Documents}; !slices.Equal(h.pickedIn, want) {
		t.Errorf("the dialog started in %q, want %q (none while Documents is missing)", h.pickedIn, want)
	}
}
