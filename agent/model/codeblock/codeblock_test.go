package codeblock_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/model/codeblock"
	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/agent/model/openai"
)

const tool = "ipybox_execute_ipython_cell"

// shape describes parts as "text:..." and "code:..." for comparison.
func shape(parts []model.Part) []string {
	var out []string
	for _, p := range parts {
		switch {
		case p.FunctionCall != nil:
			var args struct{ Code string }
			if p.FunctionCall.Name != tool || json.Unmarshal(p.FunctionCall.Args, &args) != nil || p.FunctionCall.ID == "" {
				out = append(out, "bad call "+string(p.FunctionCall.Args))
				continue
			}
			out = append(out, "code:"+args.Code)
		default:
			out = append(out, "text:"+p.Text)
		}
	}
	return out
}

func TestCalls(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"no block", "It is 42.", []string{"text:It is 42."}},
		{"one block between prose", "Let me compute.\n```python\nprint(6 * 7)\n```\nThat prints it.",
			[]string{"text:Let me compute.\n", "code:print(6 * 7)", "text:That prints it."}},
		{"blocks in order", "```python\nseq = ['first']\n```\n\n```py\nseq.append('second')\n```\n```Python3\nseq.append('third')\nprint(seq)\n```\n",
			[]string{"code:seq = ['first']", "code:seq.append('second')", "code:seq.append('third')\nprint(seq)"}},
		{"other languages stay text", "```bash\nls\n```\n```\nprint(1)\n```", []string{"text:```bash\nls\n```\n```\nprint(1)\n```"}},
		{"cut off block never runs", "```python\nx = 1\n```\nNow:\n```python\nprint(x", []string{"code:x = 1", "text:Now:\n```python\nprint(x"}},
		{"longer fence keeps inner fences", "````python\ns = '''\n```\n'''\nprint(len(s))\n````", []string{"code:s = '''\n```\n'''\nprint(len(s))"}},
		{"shorter closing fence does not close", "````python\na = 1\n```\nb = 2\n````", []string{"code:a = 1\n```\nb = 2"}},
		{"indented fence", "  ```python\n  print(1)\n  ```", []string{"code:  print(1)"}},
		{"empty block is dropped", "```python\n\n```\nDone.", []string{"text:Done."}},
		{"fence text inside a line is prose", "Use ```python blocks.", []string{"text:Use ```python blocks."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := shape(codeblock.Calls([]model.Part{{Text: tc.text}}, tool))
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("Calls(%q)\n got %q\nwant %q", tc.text, got, tc.want)
			}
		})
	}
}

// Thoughts, images and calls a reply already has pass through unchanged.
func TestCallsKeepsOtherParts(t *testing.T) {
	call := &model.FunctionCall{ID: "c1", Name: "other", Args: json.RawMessage(`{}`)}
	parts := []model.Part{{Text: "```python\nprint(1)\n```", Thought: true}, {FunctionCall: call}}
	got := codeblock.Calls(parts, tool)
	if len(got) != 2 || !got[0].Thought || got[1].FunctionCall != call {
		t.Errorf("Calls changed parts it does not own: %+v", got)
	}
}

// Fence picks a fence the code cannot close, so Calls gets the code back.
func TestFenceRoundTrip(t *testing.T) {
	for _, code := range []string{"print(1)", "s = '''\n```\n'''", "x = '````'\n```python\n"} {
		got := shape(codeblock.Calls([]model.Part{{Text: codeblock.Fence(code)}}, tool))
		if want := "code:" + strings.TrimSuffix(code, "\n"); len(got) != 1 || got[0] != want {
			t.Errorf("Fence(%q) reads back as %q, want %q", code, got, want)
		}
	}
}

func FuzzCalls(f *testing.F) {
	for _, s := range []string{"```python\nprint(1)\n```", "a\n````py\n```\n````\n", "```python\ncut", "```\n```python\n```"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if !utf8.ValidString(text) {
			return // replies arrive as JSON strings: always UTF-8
		}
		parts := codeblock.Calls([]model.Part{{Text: text}}, tool)
		for _, p := range parts {
			if p.FunctionCall == nil {
				if !strings.Contains(text, p.Text) {
					t.Fatalf("prose %q is not from %q", p.Text, text)
				}
				continue
			}
			var args struct{ Code string }
			if err := json.Unmarshal(p.FunctionCall.Args, &args); err != nil {
				t.Fatalf("call args %s: %v", p.FunctionCall.Args, err)
			}
			if !strings.Contains(text, args.Code) || strings.TrimSpace(args.Code) == "" {
				t.Fatalf("code %q is not a block of %q", args.Code, text)
			}
			// Written back, the code is one block again.
			again := shape(codeblock.Calls([]model.Part{{Text: codeblock.Fence(args.Code)}}, tool))
			if len(again) != 1 || again[0] != "code:"+strings.TrimSuffix(args.Code, "\n") {
				t.Fatalf("Fence(%q) reads back as %q", args.Code, again)
			}
		}
	})
}

func newModel(t *testing.T, base string) model.Model {
	t.Helper()
	b, err := openai.New(openai.Config{Model: "smollm2", BaseURL: base + "/v1", Label: "llama:smollm2"})
	if err != nil {
		t.Fatal(err)
	}
	return model.New(b, model.RetryPolicy{MaxAttempts: 1, BaseDelay: time.Millisecond})
}

func reply(t *testing.T, m model.Model, req *model.Request) model.Message {
	t.Helper()
	for ch, err := range m.Stream(t.Context(), req) {
		if err != nil {
			t.Fatal(err)
		}
		if d, ok := ch.(model.Done); ok {
			return d.Message
		}
	}
	t.Fatal("no Done")
	return model.Message{}
}

// On the wire the model gets no tools, the instructions, its earlier code
// actions as the blocks they were and their results as text; its reply's
// blocks come back as calls of the code action tool.
func TestWrapOnTheWire(t *testing.T) {
	srv := modeltest.NewOpenAI(t, modeltest.LoadScenario(t, "testdata/blocks.yaml"))
	m := codeblock.Wrap(newModel(t, srv.URL()), tool)
	earlier := &model.FunctionCall{ID: "c0", Name: tool, Args: json.RawMessage(`{"code":"x = 6"}`)}
	req := &model.Request{
		System: "You are a code-action agent.",
		Tools:  []model.Tool{{Name: tool, Description: "Run code"}},
		Messages: []model.Message{
			model.UserText("Set x."),
			{Role: model.RoleModel, Parts: []model.Part{{Text: "Setting it."}, {FunctionCall: earlier}}},
			model.ToolResults(model.FunctionResponse{ID: "c0", Name: tool, Output: ""}),
			model.UserText("Now multiply."),
		},
	}
	msg := reply(t, m, req)
	got := shape(msg.Parts)
	want := []string{"text:Multiplying.\n", "code:y = x * 7", "code:print(y)"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("reply parts %q, want %q", got, want)
	}
	sent := srv.Requests()[0]
	if len(sent.Tools) != 0 {
		t.Errorf("tools were offered: %v", sent.Tools)
	}
	if !strings.HasPrefix(sent.System, "You are a code-action agent.") || !strings.Contains(sent.System, codeblock.Instructions) {
		t.Errorf("system prompt %q lacks the instructions", sent.System)
	}
	var texts []string
	for _, msg := range sent.Messages {
		if len(msg.FunctionCalls()) > 0 || len(msg.FunctionResponses()) > 0 {
			t.Errorf("a call or result went out as such: %+v", msg)
		}
		texts = append(texts, string(msg.Role)+": "+msg.Text())
	}
	wantTexts := "user: Set x.|model: Setting it.\n```python\nx = 6\n```\n|user: Output of the code action:\n(no output)\n|user: Now multiply."
	if strings.Join(texts, "|") != wantTexts {
		t.Errorf("messages sent:\n%q\nwant\n%q", strings.Join(texts, "|"), wantTexts)
	}
}

// Auto asks llama.cpp's /props once: a template without tool calls gets
// blocks, one with them gets tools.
func TestAuto(t *testing.T) {
	for _, tools := range []bool{false, true} {
		sc := `
turns:
  - reply: [{text: "` + "```python\\nprint(1)\\n```" + `"}]
  - reply: [{text: "Done."}]
`
		parsed, err := modeltest.ParseScenario([]byte(sc))
		if err != nil {
			t.Fatal(err)
		}
		srv := modeltest.NewOpenAI(t, parsed)
		base := modeltest.WithProps(t, srv, tools)
		m := codeblock.Auto(newModel(t, base), tool, codeblock.ServerProbe(nil, base+"/v1", "smollm2"))
		req := &model.Request{Messages: []model.Message{model.UserText("Go.")}, Tools: []model.Tool{{Name: tool}}}
		first := reply(t, m, req)
		reply(t, m, req)
		if got := len(first.FunctionCalls()); got != map[bool]int{false: 1, true: 0}[tools] {
			t.Errorf("template with tools=%v: %d calls from a python block", tools, got)
		}
		if got := len(srv.Requests()[1].Tools); got != map[bool]int{false: 0, true: 1}[tools] {
			t.Errorf("template with tools=%v: second request offered %d tools", tools, got)
		}
	}
}

// A server that answers neither probe leaves tool calls on.
func TestServerProbeUnknown(t *testing.T) {
	h := httptest.NewServer(http.NotFoundHandler())
	defer h.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if tools, known := codeblock.ServerProbe(nil, h.URL+"/v1", "m")(ctx); known {
		t.Errorf("probe of a server without /props or /api/show: tools=%v known", tools)
	}
}

// Ollama lists "tools" among a model's capabilities.
func TestServerProbeOllama(t *testing.T) {
	h := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct{ Model string }
		if r.URL.Path != "/api/show" || json.NewDecoder(r.Body).Decode(&body) != nil || body.Model != "smollm2:135m" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(`{"capabilities":["completion"]}`))
	}))
	defer h.Close()
	if tools, known := codeblock.ServerProbe(nil, h.URL+"/v1", "smollm2:135m")(t.Context()); !known || tools {
		t.Errorf("Ollama model without the tools capability: tools=%v known=%v", tools, known)
	}
}

// A request without the code action tool (a compaction's summary) gets no
// instructions, and a block in its reply stays text.
func TestWrapWithoutTheCodeTool(t *testing.T) {
	sc, err := modeltest.ParseScenario([]byte("turns:\n  - reply: [{text: \"Summary:\\n```python\\nx = 6\\n```\\n\"}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	srv := modeltest.NewOpenAI(t, sc)
	m := codeblock.Wrap(newModel(t, srv.URL()), tool)
	msg := reply(t, m, &model.Request{System: "Summarise.", Messages: []model.Message{model.UserText("The conversation.")}})
	if len(msg.FunctionCalls()) != 0 || !strings.Contains(msg.Text(), "x = 6") {
		t.Errorf("summary reply %+v: want its block as text", msg)
	}
	if s := srv.Requests()[0].System; s != "Summarise." {
		t.Errorf("system prompt %q", s)
	}
}
