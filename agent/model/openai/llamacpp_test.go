package openai_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/model/modeltest/record"
	"github.com/freeact/desktop/agent/model/openai"
)

// The fixtures under testdata/llamacpp are the raw bytes of a real
// llama.cpp server (each names its build and model), recorded by make
// test-local-model with RECORD=1. Each is replayed whole, in 13-byte
// writes and byte by byte: the decoder must give the same reply however
// the stream is split. Recorded: several tool calls in one reply, each
// streamed in argument deltas, and a call cut in its arguments by
// max_tokens (these two asked with tool_choice required: SmolLM2-135M
// begins no call of its own), a
// text reply cut at max_tokens and the two error answers. README.md there
// names the server build and the model.
var llamaFixtures = []string{"parallel_tool_calls", "cut_tool_call", "cut_reply", "context_overflow", "malformed_arguments_500"}

// replay streams fixture f through the openai backend once per split
// size and returns the reply, its cut calls and the error, the same for
// every split.
func replay(t *testing.T, f record.Fixture) (model.Message, []model.FunctionCall, error) {
	t.Helper()
	var (
		first    model.Message
		firstCut []model.FunctionCall
		firstErr error
	)
	for i, split := range []int{0, 13, 1} {
		srv := record.Replay(t, f, split)
		b, err := openai.New(openai.Config{Model: "smollm2", BaseURL: srv.URL + "/v1", Label: "llama.cpp:smollm2"})
		if err != nil {
			t.Fatal(err)
		}
		var msg model.Message
		var cut []model.FunctionCall
		var serr error
		for ch, err := range model.New(b, model.RetryPolicy{MaxAttempts: 1}).Stream(t.Context(), &model.Request{Messages: []model.Message{model.UserText("x")}}) {
			if err != nil {
				serr = err
				break
			}
			if d, ok := ch.(model.Done); ok {
				msg, cut = d.Message, d.Cut
			}
		}
		if i == 0 {
			first, firstCut, firstErr = msg, cut, serr
			continue
		}
		a, _ := json.Marshal([]any{first.Parts, firstCut})
		bb, _ := json.Marshal([]any{msg.Parts, cut})
		if string(a) != string(bb) || first.Stop != msg.Stop || (firstErr == nil) != (serr == nil) {
			t.Errorf("split %d: %s / %q / %v, whole: %s / %q / %v", split, bb, msg.Stop, serr, a, first.Stop, firstErr)
		}
	}
	return first, firstCut, firstErr
}

// codeCalls checks that calls are whole calls of the code tool, {"code":
// "..."}, and returns their code.
func codeCalls(t *testing.T, calls []model.FunctionCall) []string {
	t.Helper()
	var code []string
	for _, c := range calls {
		var args struct{ Code *string }
		if c.Name != "ipybox_execute_ipython_cell" || json.Unmarshal(c.Args, &args) != nil || args.Code == nil || c.ID == "" {
			t.Errorf("call %s %s (id %q): want a whole call of the code tool", c.Name, c.Args, c.ID)
			continue
		}
		code = append(code, *args.Code)
	}
	return code
}

func loadFixture(t *testing.T, name string) record.Fixture {
	t.Helper()
	f, err := record.Load(filepath.Join("testdata", "llamacpp", name+".json"))
	if err != nil {
		t.Fatalf("%v (record it with RECORD=1 make test-local-model)", err)
	}
	if !strings.Contains(f.Server, "llama.cpp") || !strings.Contains(f.Model, "SmolLM2") {
		t.Fatalf("fixture %s names server %q, model %q", name, f.Server, f.Model)
	}
	return f
}

func TestLlamaCppFixtures(t *testing.T) {
	for _, name := range llamaFixtures {
		t.Run(name, func(t *testing.T) {
			f := loadFixture(t, name)
			msg, cut, err := replay(t, f)
			var apiErr *model.APIError
			switch name {
			case "parallel_tool_calls":
				// Each call's arguments came in many deltas and were put
				// together; SmolLM2 repeats its call until max_tokens cuts
				// the last, which is not among the reply's calls.
				calls := msg.FunctionCalls()
				code := codeCalls(t, calls)
				if err != nil || len(code) < 2 || len(cut) != 1 || msg.Stop != model.StopMaxTokens || strings.Count(f.Response, `"arguments"`) < 5*len(calls) {
					t.Fatalf("calls %q, cut %v, stop %q, err %v: want several whole calls streamed in deltas, then a cut one", code, cut, msg.Stop, err)
				}
				// In the order the server sent them (their index).
				last := -1
				for _, c := range calls {
					at := strings.Index(f.Response, `"id":"`+c.ID+`"`)
					if at <= last {
						t.Errorf("call %s is out of the server's order", c.ID)
					}
					last = at
				}
			case "cut_tool_call":
				// The call cut in its arguments is taken out of the reply:
				// never run, never sent back.
				if err != nil || msg.Stop != model.StopMaxTokens || len(msg.FunctionCalls()) != 0 || len(cut) != 1 || cut[0].Name != "ipybox_execute_ipython_cell" || model.ArgsComplete(cut[0].Args) {
					t.Fatalf("stop %q, calls %d, cut %+v, err %v: want one cut call and none to run", msg.Stop, len(msg.FunctionCalls()), cut, err)
				}
			case "cut_reply":
				// The cut shows: a reply that stopped at max_tokens is never
				// taken for a finished one.
				if err != nil || msg.Stop != model.StopMaxTokens || !strings.HasPrefix(msg.Text(), "A Python list is") {
					t.Fatalf("reply %q stop %q err %v: want the text cut at max_tokens", msg.Text(), msg.Stop, err)
				}
			case "context_overflow":
				if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Status != "exceed_context_size_error" {
					t.Fatalf("error %v: want HTTP 400 exceed_context_size_error", err)
				}
				// Recognised as an overflow (the agent compacts and retries
				// once), with the window the server named.
				if !model.IsContextOverflow(err) || model.OverflowWindow(err) != 2048 {
					t.Errorf("overflow %v, window %d: want an overflow of a 2048-token window", model.IsContextOverflow(err), model.OverflowWindow(err))
				}
			case "malformed_arguments_500":
				if !errors.As(err, &apiErr) || apiErr.StatusCode != 500 || !strings.Contains(apiErr.Message, "Failed to parse tool call arguments as JSON") {
					t.Fatalf("error %v: want HTTP 500 naming the arguments", err)
				}
				// A request the server called malformed is never retried.
				if !model.IsMalformedRequest(apiErr) || model.IsTransient(err) {
					t.Errorf("malformed %v, transient %v: want a malformed request that is not retried", model.IsMalformedRequest(apiErr), model.IsTransient(err))
				}
			}
		})
	}
}
