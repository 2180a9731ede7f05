package gate

import (
	"context"
	"slices"
	"testing"

	"github.com/freeact/desktop/agent/approval"
	"github.com/freeact/desktop/agent/event"
	"github.com/freeact/desktop/agent/hooks"
	"github.com/freeact/desktop/agent/model"
)

// Runners given one after the other add up their sets; the first one's
// folder and settings stay, and neither runner given is changed.
func TestMergeAddsTheSetsAndKeepsTheFirstRunner(t *testing.T) {
	user := &hooks.Runner{Dir: "/ws", Sets: []hooks.Set{{Source: "user"}}}
	ws := &hooks.Runner{Dir: "/other", Sets: []hooks.Set{{Source: "workspace"}}}
	tests := []struct {
		name      string
		into, add *hooks.Runner
		wantDir   string
		wantSets  []string
	}{
		{"none", nil, nil, "", nil},
		{"first", nil, user, "/ws", []string{"user"}},
		{"nothing more", user, nil, "/ws", []string{"user"}},
		{"both", user, ws, "/ws", []string{"user", "workspace"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Merge(tt.into, tt.add)
			if got == nil {
				if tt.wantSets != nil {
					t.Fatalf("Merge = nil, want sets %v", tt.wantSets)
				}
				return
			}
			var sources []string
			for _, s := range got.Sets {
				sources = append(sources, s.Source)
			}
			if got.Dir != tt.wantDir || !slices.Equal(sources, tt.wantSets) {
				t.Fatalf("Merge = dir %q sets %v, want %q %v", got.Dir, sources, tt.wantDir, tt.wantSets)
			}
		})
	}
	if len(user.Sets) != 1 || len(ws.Sets) != 1 {
		t.Fatalf("Merge changed the runners it was given: %d and %d sets", len(user.Sets), len(ws.Sets))
	}
}

// An agent without hooks has a nil *Hooks: the approver gets no hook
// callbacks, prompts go out as they are, turns stop, results stay.
func TestNoHooksChangeNothing(t *testing.T) {
	var ap approval.Approver
	h := Wire(nil, nil, &ap)
	if h != nil || ap.Asking != nil || ap.PreTool != nil {
		t.Fatalf("Wire without a runner = %v, Asking set %v, PreTool set %v", h, ap.Asking != nil, ap.PreTool != nil)
	}
	ctx := context.Background()
	emit := func(ev event.Event) { t.Errorf("emitted %T", ev) }
	msg := model.UserText("hi")
	if !h.Prompt(ctx, emit, &msg, "hi") || len(msg.Parts) != 1 {
		t.Fatalf("Prompt without hooks blocked or changed the prompt: %+v", msg)
	}
	if next := h.Stop(ctx, emit, 0); next != nil {
		t.Fatalf("Stop without hooks goes on with %+v", next)
	}
	resp := model.FunctionResponse{ID: "c1", Output: "out"}
	h.AfterTool(ctx, emit, &resp, "rejected")
	if resp.Output != "out" {
		t.Fatalf("AfterTool without hooks changed the output to %q", resp.Output)
	}
	if o := h.Run(ctx, emit, "c1", hooks.Input{HookEventName: hooks.PreToolUse}); o.Decision != "" || len(o.Context) > 0 {
		t.Fatalf("Run without hooks = %+v", o)
	}
}
