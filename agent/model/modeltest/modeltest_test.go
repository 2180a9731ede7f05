package modeltest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/model/anthropic"
	"github.com/freeact/desktop/agent/model/gemini"
	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/agent/model/openai"
)

// recorder is a modeltest.T that keeps failures instead of failing.
type recorder struct {
	mu       sync.Mutex
	errs     []string
	cleanups []func()
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }
func (r *recorder) finish() string {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
	return strings.Join(r.errs, "\n")
}

const strict = `
name: strict
turns:
  - expect:
      model: gemini-3-flash-preview
      system_contains: be brief
      tools: [ipybox_reset]
      messages: 1
      include_thoughts: true
      last: [{role: user, text: "ping"}]
    reply: [{text: pong}]
  - reply: [{text: never requested}]
`

// TestMismatchesAreReported runs a request that breaks every expectation and
// checks that each one is reported, and that the unplayed turn is too.
func TestMismatchesAreReported(t *testing.T) {
	for _, provider := range []string{"gemini", "openai", "anthropic"} {
		t.Run(provider, func(t *testing.T) {
			sc, err := modeltest.ParseScenario([]byte(strict))
			if err != nil {
				t.Fatal(err)
			}
			rec := &recorder{}
			var b model.Backend
			if provider == "gemini" {
				srv := modeltest.NewGemini(rec, sc)
				b, err = gemini.New(t.Context(), gemini.Config{Model: "gemini-2.5-flash", APIKey: "k", BaseURL: srv.URL()})
			} else if provider == "openai" {
				srv := modeltest.NewOpenAI(rec, sc)
				b, err = openai.New(openai.Config{Model: "gpt-x", BaseURL: srv.URL() + "/v1"})
			} else {
				srv := modeltest.NewAnthropic(rec, sc)
				b, err = anthropic.New(anthropic.Config{Model: "claude-x", BaseURL: srv.URL(), APIKey: "k"})
			}
			if err != nil {
				t.Fatal(err)
			}
			m := model.New(b, model.RetryPolicy{MaxAttempts: 1})
			req := &model.Request{System: "be verbose", Messages: []model.Message{model.UserText("pong"), {Role: model.RoleModel, Parts: []model.Part{{Text: "?"}}}}}
			for _, err := range m.Stream(t.Context(), req) {
				if err != nil {
					t.Fatal(err)
				}
			}
			report := rec.finish()
			for _, want := range []string{
				`model is "`,
				`system prompt "be verbose" does not contain "be brief"`,
				`tool "ipybox_reset" not offered`,
				"got 2 messages, want 1",
				`no part of the last message matches {"role":"user","text":"ping"}`,
				"1 of 2 turns were never requested",
			} {
				if !strings.Contains(report, want) {
					t.Errorf("report lacks %q:\n%s", want, report)
				}
			}
			if provider != "openai" && !strings.Contains(report, "include_thoughts is false, want true") {
				t.Errorf("report lacks include_thoughts:\n%s", report)
			}
		})
	}
}

func TestExtraRequestIsReported(t *testing.T) {
	sc, err := modeltest.ParseScenario([]byte("turns: [{reply: [{text: one}]}]"))
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	srv := modeltest.NewOpenAI(rec, sc)
	b, _ := openai.New(openai.Config{Model: "m", BaseURL: srv.URL() + "/v1"})
	m := model.New(b, model.RetryPolicy{MaxAttempts: 1})
	var last error
	for range 2 {
		for _, err := range m.Stream(t.Context(), &model.Request{Messages: []model.Message{model.UserText("x")}}) {
			last = err
		}
	}
	if last == nil || !strings.Contains(last.Error(), "scenario has no more turns") {
		t.Errorf("second request: %v", last)
	}
	if report := rec.finish(); !strings.Contains(report, "request 2 but the scenario has only 1 turns") {
		t.Errorf("report: %s", report)
	}
}

func TestParseScenarioErrors(t *testing.T) {
	tests := []struct{ yaml, want string }{
		{"turns: [{then: explode}]", `then "explode"`},
		{"turns: [{finish: bored}]", `finish "bored"`},
		{"turns: [{reply: [{text: a, thought: b}]}]", "exactly one of thought, text, call"},
		{"turns: [{reply: [{call: {args: {}}}]}]", "call without a name"},
		{"turns: [{error: {status: 200}}]", "status >= 400"},
		{"turns: [{replies: []}]", "field replies not found"},
	}
	for _, tt := range tests {
		_, err := modeltest.ParseScenario([]byte(tt.yaml))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.yaml, err, tt.want)
		}
	}
}

// TestPackageDocExample plays the scenario shown in the package doc (kept
// in testdata/example.yaml) through the Gemini client.
func TestPackageDocExample(t *testing.T) {
	srv := modeltest.NewGemini(t, modeltest.LoadScenario(t, "testdata/example.yaml"))
	b, err := gemini.New(t.Context(), gemini.Config{Model: "gemini-3-flash-preview", APIKey: "k", BaseURL: srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	m := model.New(b, model.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: time.Millisecond})
	tools := []model.Tool{{Name: "ipybox_execute_ipython_cell"}}
	history := []model.Message{model.UserText("What is 2+2?")}
	run := func(ctx context.Context) (model.Message, error) {
		for c, err := range m.Stream(ctx, &model.Request{Messages: history, Tools: tools}) {
			if err != nil {
				return model.Message{}, err
			}
			if d, ok := c.(model.Done); ok {
				return d.Message, nil
			}
		}
		return model.Message{}, errors.New("no Done")
	}
	reply, err := run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	call := reply.FunctionCalls()[0]
	history = append(history, reply, model.ToolResults(model.FunctionResponse{ID: call.ID, Name: call.Name, Output: "4\n"}))
	if reply, err = run(t.Context()); err != nil || reply.Text() != "It is 4." {
		t.Fatalf("second turn: %q, %v", reply.Text(), err)
	}
	// 429, retried, then a reply that hangs: the user stops it once text
	// came (a minute's safety net if the stop does not work).
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	for c, e := range m.Stream(ctx, &model.Request{Messages: history, Tools: tools}) {
		if e != nil {
			err = e
			break
		}
		if _, ok := c.(model.TextDelta); ok {
			cancel()
		}
	}
	if p, ok := model.PartialMessage(err); !errors.Is(err, context.Canceled) || !ok || p.Text() != "partial" {
		t.Errorf("third turn: %v, partial %+v", err, p)
	}
}
