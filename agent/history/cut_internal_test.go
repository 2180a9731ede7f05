package history

import (
	"slices"
	"testing"

	"github.com/freeact/desktop/agent/model"
)

// What CutNote writes, parseCutNote reads back: a resumed conversation
// names the same limit and calls as the live turn did.
func TestCutNoteReadsBack(t *testing.T) {
	msg := model.Message{Role: model.RoleModel, Stop: model.StopMaxTokens, Usage: &model.Usage{OutputTokens: 9}}
	limit := 64
	for _, tt := range []struct {
		name      string
		maxTokens *int
		cut       []model.FunctionCall
	}{
		{"no limit set, no call cut", nil, nil},
		{"limit, one call with the provider's id", &limit, []model.FunctionCall{{ID: "toolu_1", Name: ExecuteTool}}},
		{"two calls, one with our own id", &limit, []model.FunctionCall{
			{ID: model.CallIDPrefix + "1", Name: "filesystem_write_text_file"}, {ID: "call_(x", Name: "mcp_server-tool"},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			maxTokens, dropped := parseCutNote(CutNote(msg, tt.cut, tt.maxTokens))
			var want []string
			for _, c := range tt.cut {
				want = append(want, c.Name)
			}
			wantMax := 0
			if tt.maxTokens != nil {
				wantMax = *tt.maxTokens
			}
			if maxTokens != wantMax || !slices.Equal(dropped, want) {
				t.Errorf("read back max_tokens %d, calls %q; want %d, %q", maxTokens, dropped, wantMax, want)
			}
		})
	}
}
