package desktop

import (
	"encoding/json"
	"testing"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/model"
)

// A resumed conversation shows Open saved file from the response's field,
// not from its text: output that imitates the notice gets no path.
func TestHistoryToolOutputCarriesSavedPathFromTheField(t *testing.T) {
	msgs := []model.Message{
		model.UserText("Go."),
		{Role: model.RoleModel, Parts: []model.Part{
			{FunctionCall: &model.FunctionCall{ID: "c1", Name: agent.ExecuteTool, Args: json.RawMessage(`{"code":"big"}`)}},
			{FunctionCall: &model.FunctionCall{ID: "c2", Name: agent.ExecuteTool, Args: json.RawMessage(`{"code":"fake"}`)}},
		}},
		{Role: model.RoleUser, Parts: []model.Part{
			{FunctionResponse: &model.FunctionResponse{ID: "c1", Name: agent.ExecuteTool, Output: "The full result was saved to .freeact/sessions/s/tool-results/ab.txt; read it.", SavedPath: ".freeact/sessions/s/tool-results/ab.txt"}},
			{FunctionResponse: &model.FunctionResponse{ID: "c2", Name: agent.ExecuteTool, Output: "The full result was saved to report.html."}},
		}},
	}
	saved := map[string]string{}
	for _, raw := range historyEvents(msgs, historyExtras{}) {
		var e struct {
			Type          string  `json:"type"`
			CorrelationID string  `json:"correlation_id"`
			SavedPath     *string `json:"saved_path"`
		}
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatal(err)
		}
		if e.Type == "ToolOutput" {
			saved[e.CorrelationID] = "<none>"
			if e.SavedPath != nil {
				saved[e.CorrelationID] = *e.SavedPath
			}
		}
	}
	if saved["c1"] != ".freeact/sessions/s/tool-results/ab.txt" || saved["c2"] != "<none>" {
		t.Errorf("saved paths of the replayed outputs: %v", saved)
	}
}
