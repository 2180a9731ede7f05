package agent_test

import (
	"github.com/freeact/desktop/agent/failure"
	"github.com/freeact/desktop/agent/longsession"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/model/modeltest"
)

// Error bodies as llama.cpp's llama-server sends them (its
// exceed_context_size_error and its answer to broken tool arguments).
const (
	llamaOverflow  = `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":4378,"n_ctx":4096}}`
	llamaMalformed = `{"error":{"code":500,"message":"Failed to parse tool call arguments as JSON: [json.exception.parse_error.101] parse error at line 1, column 17: syntax error while parsing value - invalid string: missing closing quote; last read: '\"print('","type":"server_error"}}`
)

// llama.cpp's context overflow is recognised: the conversation is
// compacted and sent once more, and the window it names is learnt.
func TestLlamaCppOverflowCompactsAndLearnsTheWindow(t *testing.T) {
	ws := workspace(t, `{"model": "openai:local-model"}`)
	modeltest.UseOpenAI(t, mustScenario(t, `
turns:
  - reply: [{text: "A done."}]
  - error: {status: 400, body: '`+llamaOverflow+`'}
  - expect: {system_contains: "You summarise", last: [{role: user, text: "Task A."}]}
    reply: [{text: "SUMMARY-A"}]
  - expect: {has: [{role: user, text: "SUMMARY-A"}], last: [{role: user, text: "Task B."}]}
    reply: [{text: "B done."}]
`))
	a := started(t, ws, fakeKernels(nil).executors(t))
	run(t, a, "Task A.", nil)
	events := run(t, a, "Task B.", nil)
	if c := of[*agent.Compacting](events); len(c) != 1 || c[0].Reason != longsession.CompactOverflow {
		t.Fatalf("Compacting %+v:%s", c, describe(events))
	}
	if r := of[*agent.Response](events); len(r) == 0 || r[len(r)-1].Text != "B done." {
		t.Fatalf("turn:%s", describe(events))
	}
	if w := a.SessionUsage().ContextWindow; w != 4096 {
		t.Errorf("context window %d, want the 4096 llama.cpp named", w)
	}
}

// A request the server called malformed is not retried (the identical
// request fails again) and says so; a 500 that blames nothing is.
func TestMalformedRequestIsNotRetried(t *testing.T) {
	ws := workspace(t, `{"model": "openai:local-model"}`)
	fake := modeltest.UseOpenAI(t, mustScenario(t, `
turns:
  - error: {status: 500, body: '`+strings.ReplaceAll(llamaMalformed, "'", "''")+`'}
  - error: {status: 500, message: "upstream crashed"}
  - reply: [{text: "Back."}]
`))
	a := started(t, ws, fakeKernels(nil).executors(t))
	events := run(t, a, "Go.", nil)
	f := of[*agent.Failed](events)
	if len(f) != 1 || f[0].Cause != failure.CauseModel || f[0].Status != 500 || !strings.Contains(f[0].Summary, "malformed") || f[0].Fix == "" {
		t.Fatalf("failed events %+v:%s", f, describe(events))
	}
	if r := of[*agent.ModelRetry](events); len(r) != 0 {
		t.Errorf("a malformed request was retried %d times", len(r))
	}
	if n := len(fake.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
	events = run(t, a, "Again.", nil)
	if r := of[*agent.ModelRetry](events); len(r) != 1 {
		t.Errorf("a plain 500 was retried %d times, want once:%s", len(r), describe(events))
	}
	if r := of[*agent.Response](events); len(r) != 1 || r[0].Text != "Back." {
		t.Errorf("turn:%s", describe(events))
	}
}

// A connection lost in the middle of a reply is said in plain words.
func TestConnectionLostMidStreamSaysWhatFailed(t *testing.T) {
	ws := workspace(t, `{"model": "openai:local-model"}`)
	modeltest.UseOpenAI(t, mustScenario(t, `
turns:
  - reply: [{text: "Half an ans"}]
    then: cut
`))
	a := started(t, ws, fakeKernels(nil).executors(t))
	events := run(t, a, "Go.", nil)
	f := of[*agent.Failed](events)
	if len(f) != 1 || f[0].Cause != failure.CauseModel || !strings.Contains(f[0].Summary, "lost in the middle") || f[0].Fix == "" {
		t.Fatalf("failed events %+v:%s", f, describe(events))
	}
}

// At start the agent asks a server of the user's own for the window it
// runs the model with (llama.cpp's /props here).
func TestWindowFromTheServerAtStart(t *testing.T) {
	fake := modeltest.NewOpenAI(t, mustScenario(t, "turns:\n  - reply: [{text: \"Hi.\"}]\n    usage: {input: 10, output: 2}\n"))
	target, _ := url.Parse(fake.URL())
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/props" {
			_, _ = w.Write([]byte(`{"default_generation_settings":{"n_ctx":8192},"total_slots":1}`))
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	ws := workspace(t, `{"model": "`+srv.URL+`/v1#SmolLM2"}`)
	a := started(t, ws, fakeKernels(nil).executors(t))
	if w := a.SessionUsage().ContextWindow; w != 8192 {
		t.Errorf("context window at start %d, want the server's 8192", w)
	}
	events := run(t, a, "Hello.", nil)
	if su := of[*agent.SessionUsage](events); len(su) == 0 || su[len(su)-1].ContextWindow != 8192 {
		t.Errorf("SessionUsage:%s", describe(events))
	}
}
