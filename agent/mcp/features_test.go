package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/internal/testenv"
)

// server-everything's features beyond tools, over stdio and streamable
// HTTP: elicitation, sampling, roots, resources, prompts with completion,
// and progress notifications.
func TestReferenceServerEverythingFeatures(t *testing.T) {
	js := refServer(t, "server-everything")
	url := everythingHTTP(t, js)
	for _, tr := range []struct {
		name string
		cfg  config.Server
	}{
		{"stdio", config.Server{Command: "node", Args: []string{js, "stdio"}}},
		{"http", config.Server{URL: url}},
	} {
		t.Run(tr.name, func(t *testing.T) {
			root := t.TempDir()
			var mu sync.Mutex
			var forms []mcp.Form
			var samples []mcp.SampleRequest
			var notes []mcp.Notification
			opts := mcp.Options{
				ConnectTimeout: 30 * time.Second,
				Elicit: func(_ context.Context, f mcp.Form) (mcp.Answer, error) {
					mu.Lock()
					forms = append(forms, f)
					mu.Unlock()
					return mcp.Answer{Action: "accept", Values: map[string]any{"name": "Ada Lovelace", "check": true, "email": "ada@example.com",
						"homepage": "https://example.com", "birthdate": "1815-12-10", "untitledMultipleSelectEnum": []any{"Piano"}}}, nil
				},
				Sample: func(_ context.Context, r mcp.SampleRequest) (mcp.SampleResult, error) {
					mu.Lock()
					samples = append(samples, r)
					mu.Unlock()
					return mcp.SampleResult{Text: "a sampled answer", Model: "test-model"}, nil
				},
				Roots: func() []string { return []string{root} },
				OnNotify: func(n mcp.Notification) {
					mu.Lock()
					notes = append(notes, n)
					mu.Unlock()
				},
			}
			m, _ := newManager(t, map[string]config.Server{"everything": tr.cfg}, opts)
			ctx := t.Context()
			if err := m.Connect(ctx); err != nil {
				t.Fatal(err)
			}

			sum := m.Tools()[slices.IndexFunc(m.Tools(), func(t mcp.Tool) bool { return t.Name == "get-sum" })]
			if h := sum.Hints; h == nil || h.ReadOnly == nil || !*h.ReadOnly || h.Destructive == nil || *h.Destructive {
				t.Errorf("get-sum annotations %+v, want read-only and not destructive", h)
			}

			res, err := m.Call(ctx, "everything", "trigger-elicitation-request", nil)
			if err != nil || !strings.Contains(res.ModelText(), "Ada Lovelace") {
				t.Fatalf("trigger-elicitation-request: %+v %v", res, err)
			}
			mu.Lock()
			if len(forms) != 1 {
				t.Fatalf("forms %v, want one", forms)
			}
			fields := map[string]mcp.Field{}
			for _, f := range forms[0].Fields {
				fields[f.Name] = f
			}
			mu.Unlock()
			if f := fields["untitledSingleSelectEnum"]; len(f.Options) != 6 || f.Default != "Monica" || f.Multi {
				t.Errorf("single select field %+v", f)
			}
			if f := fields["untitledMultipleSelectEnum"]; !f.Multi || len(f.Options) != 5 {
				t.Errorf("multi-select field %+v", f)
			}
			// The defaults of fields left out were sent (SEP-1034).
			if !strings.Contains(res.ModelText(), "It was a dark and stormy night.") {
				t.Errorf("the default of firstLine was not applied: %s", res.ModelText())
			}

			res, err = m.Call(ctx, "everything", "trigger-sampling-request", json.RawMessage(`{"prompt": "say hi", "maxTokens": 20}`))
			if err != nil || !strings.Contains(res.ModelText(), "a sampled answer") {
				t.Fatalf("trigger-sampling-request: %+v %v", res, err)
			}
			mu.Lock()
			if len(samples) != 1 || !strings.Contains(fmt.Sprint(samples[0].Messages), "say hi") {
				t.Errorf("sampling requests %+v", samples)
			}
			mu.Unlock()

			res, err = m.Call(ctx, "everything", "get-roots-list", nil)
			if err != nil || !strings.Contains(res.ModelText(), root) {
				t.Fatalf("get-roots-list: %+v %v (want %s)", res, err, root)
			}
			if err := m.RootsChanged(ctx); err != nil {
				t.Fatal(err)
			}

			resources, err := m.Resources(ctx, "everything")
			if err != nil || len(resources) == 0 {
				t.Fatalf("resources: %v %v", resources, err)
			}
			text, err := m.ReadResource(ctx, "everything", resources[0].URI)
			if err != nil || text == "" {
				t.Fatalf("read %s: %q %v", resources[0].URI, text, err)
			}
			templates, err := m.ResourceTemplates(ctx, "everything")
			if err != nil || len(templates) == 0 || templates[0].URITemplate == "" {
				t.Fatalf("templates: %+v %v", templates, err)
			}

			prompts, err := m.Prompts(ctx, "everything")
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(prompts, func(p mcp.Prompt) bool { return p.Name == "args-prompt" && len(p.Arguments) > 0 }) {
				t.Fatalf("prompts %+v: no args-prompt with arguments", prompts)
			}
			msgs, err := m.GetPrompt(ctx, "everything", "args-prompt", map[string]string{"city": "Paris", "state": "Texas"})
			if err != nil || len(msgs) == 0 || !strings.Contains(msgs[0].Text, "Paris") {
				t.Fatalf("args-prompt: %+v %v", msgs, err)
			}
			values, err := m.CompletePromptArgument(ctx, "everything", "completable-prompt", "department", "Eng", nil)
			if err != nil || !slices.Contains(values, "Engineering") {
				t.Fatalf("completion: %v %v", values, err)
			}
			// The leader's names depend on the department already chosen,
			// which goes along as the completion's context.
			values, err = m.CompletePromptArgument(ctx, "everything", "completable-prompt", "name", "",
				map[string]string{"department": "Sales", "name": "ignored: the argument itself"})
			if err != nil || !slices.Equal(values, []string{"David", "Eve", "Frank"}) {
				t.Fatalf("completion of name in Sales: %v %v", values, err)
			}
			if values, err = m.CompletePromptArgument(ctx, "everything", "completable-prompt", "name", "", nil); err != nil || len(values) != 0 {
				t.Fatalf("completion of name without a department: %v %v", values, err)
			}

			// The tools registered for the client's capabilities are listed,
			// and log messages arrive (the server logs the roots it got).
			testenv.Eventually(t, 30*time.Second, func() error {
				if !slices.ContainsFunc(m.Tools(), func(t mcp.Tool) bool { return t.Name == "trigger-sampling-request" }) {
					return fmt.Errorf("tools %v lack trigger-sampling-request", m.Tools())
				}
				mu.Lock()
				defer mu.Unlock()
				if !slices.ContainsFunc(notes, func(n mcp.Notification) bool { return n.Kind == "log" && strings.Contains(n.Message, "Roots") }) {
					return fmt.Errorf("no log notification among %+v", notes)
				}
				return nil
			})

			if _, err := m.Call(ctx, "everything", "trigger-long-running-operation", json.RawMessage(`{"duration": 1, "steps": 2}`)); err != nil {
				t.Fatal(err)
			}
			testenv.Eventually(t, 30*time.Second, func() error {
				mu.Lock()
				defer mu.Unlock()
				n := 0
				for _, x := range notes {
					if x.Kind == "progress" && x.Server == "everything" && x.Total == 2 {
						n++
					}
				}
				if n < 2 {
					return fmt.Errorf("progress notifications %+v, want two of 2 steps", notes)
				}
				return nil
			})
		})
	}
}
