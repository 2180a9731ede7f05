package app

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/checkpoint"
	"github.com/freeact/desktop/agent/model"
)

// A resumed session shows a cell the user ran as it showed live: under
// the id it ran under, the code as asked and the user's edit (the "edited
// by you" badge), its images and time, and the files it changed with
// their checkpoint (Review, Revert), all from the cell's record.
func TestHistoryShowsUserCellAsItRan(t *testing.T) {
	const run = "run-0a1b2c3d"
	note := "<user-cell source=\"notebook\" of=\"nb1\" status=\"ok\" run=\"" + run + "\">\n" +
		"The user ran this code in the kernel themselves (it was not a tool call of yours):\n```python\nprint('edited')\n```\n" +
		"Output:\n```\nedited\n![image](/ws/images/a.png)\n```\n</user-cell>"
	msgs := []model.Message{
		{Role: model.RoleUser, Parts: []model.Part{{Text: "Hello.", User: true}}},
		{Role: model.RoleModel, Parts: []model.Part{{Text: "Hi."}}},
		{Role: model.RoleUser, Parts: []model.Part{{Text: note, Ran: &model.Ran{
			By: agent.CellNotebook, Of: "nb1", Code: "print('edited')",
			Run: run, Original: "print('asked')", Images: []string{"/ws/images/a.png"}, ElapsedMS: 1500,
		}}}},
	}
	changed := &agent.FilesChanged{Meta: agent.Meta{AgentID: agent.MainAgent, CorrelationID: run}, Checkpoint: "ck1", TurnID: "t1",
		Files: []checkpoint.Change{{Path: "made.txt", Status: "added"}}}
	x := historyExtras{changes: map[string]*agent.FilesChanged{run: changed}}
	type event struct {
		Type          string   `json:"type"`
		CorrelationID string   `json:"correlation_id"`
		Code          string   `json:"code"`
		Images        []string `json:"images"`
		ElapsedMS     int64    `json:"elapsed_ms"`
		Checkpoint    string   `json:"checkpoint"`
	}
	var got []event
	for _, raw := range historyEvents(msgs, x) {
		var e event
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatal(err)
		}
		if e.CorrelationID != "" {
			got = append(got, e)
		}
	}
	want := []event{
		{Type: "CellStarted", CorrelationID: run, Code: "print('asked')"},
		{Type: "CodeEdited", CorrelationID: run, Code: "print('edited')"},
		{Type: "CodeExecutionOutput", CorrelationID: run, Images: []string{"/ws/images/a.png"}, ElapsedMS: 1500},
		{Type: "FilesChanged", CorrelationID: run, Checkpoint: "ck1"},
	}
	if !slices.EqualFunc(got, want, func(a, b event) bool {
		return a.Type == b.Type && a.CorrelationID == b.CorrelationID && a.Code == b.Code && slices.Equal(a.Images, b.Images) &&
			a.ElapsedMS == b.ElapsedMS && a.Checkpoint == b.Checkpoint
	}) {
		t.Errorf("the cell's events\n got %+v\nwant %+v", got, want)
	}
}
