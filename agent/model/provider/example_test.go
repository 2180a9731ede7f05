package provider_test

import (
	"context"
	"fmt"
	"log"

	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/agent/model/provider"
)

// exampleT lets the example start a fake server outside a test function.
type exampleT struct{ failed bool }

func (*exampleT) Helper()                     {}
func (e *exampleT) Errorf(f string, a ...any) { e.failed = true; log.Printf(f, a...) }
func (*exampleT) Cleanup(func())              {}

// Example shows one model call the way the turn loop makes it: stream,
// forward deltas, keep the complete message, then answer the calls.
func Example() {
	sc, _ := modeltest.ParseScenario([]byte(`
turns:
  - reply:
      - thought: "Simple arithmetic."
      - text: "Computing."
      - call: {name: ipybox_execute_ipython_cell, args: {code: "print(6*7)"}}
        signature: sig-1
    usage: {input: 40, output: 12, thinking: 5}
`))
	srv := modeltest.NewGemini(&exampleT{}, sc)
	defer srv.Close()

	ctx := context.Background()
	// In production the key and endpoint come from the environment.
	m, err := provider.New(ctx, "google:gemini-3-flash-preview", provider.Options{APIKey: "fake-key", BaseURL: srv.URL()})
	if err != nil {
		log.Fatal(err)
	}
	history := []model.Message{model.UserText("What is 6 times 7?")}
	req := &model.Request{System: "You are a code-action agent.", Messages: history}
	var reply model.Message
	for chunk, err := range m.Stream(ctx, req) {
		if err != nil {
			if partial, ok := model.PartialMessage(err); ok {
				history = append(history, partial) // keep what arrived
			}
			log.Fatal(err)
		}
		switch c := chunk.(type) {
		case model.ThoughtDelta:
			fmt.Printf("thinking: %s\n", c.Text)
		case model.TextDelta:
			fmt.Printf("text: %s\n", c.Text)
		case model.Retry:
			fmt.Printf("retrying in %v: %v\n", c.Delay, c.Err)
		case model.UsageChunk:
			fmt.Printf("tokens: %d in, %d out, %d thinking\n", c.Usage.InputTokens, c.Usage.OutputTokens, c.Usage.ThinkingTokens)
		case model.Done:
			reply = c.Message
		}
	}
	history = append(history, reply)
	for _, call := range reply.FunctionCalls() {
		fmt.Printf("call %s %s\n", call.Name, call.Args)
		history = append(history, model.ToolResults(model.FunctionResponse{ID: call.ID, Name: call.Name, Output: "42\n"}))
	}
	fmt.Println(len(history), "messages")
	// Output:
	// thinking: Simple arithmetic.
	// text: Computing.
	// tokens: 40 in, 12 out, 5 thinking
	// call ipybox_execute_ipython_cell {"code":"print(6*7)"}
	// 3 messages
}
