package desktop

import (
	"encoding/json"
	"github.com/freeact/desktop/agent/history"
	"slices"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/checkpoint"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/seal"
)

// A resumed session shows a cell the user ran as it showed live: under
// the id it ran under, the code as asked and the user's edit (the "edited
// by you" badge), its images and time, and the files it changed with
// their checkpoint (Review, Revert), all from the cell's record.
func TestHistoryShowsUserCellAsItRan(t *testing.T) {
	const run = userCellRun
	key := seal.New([]byte("0123456789abcdef0123456789abcdef"))
	ran := userCellRecord(run)
	key.Sign(ran, "")
	x := userCellExtras(run, key.Whole)
	want := []cellEvent{
		{Type: "CellStarted", CorrelationID: run, Code: "print('asked')"},
		{Type: "CodeEdited", CorrelationID: run, Code: "print('edited')"},
		{Type: "CodeExecutionOutput", CorrelationID: run, Images: []string{"/ws/images/a.png"}, ElapsedMS: 1500},
		{Type: "FilesChanged", CorrelationID: run, Checkpoint: "ck1"},
	}
	if got := userCellShown(t, ran, x); !slices.EqualFunc(got, want, sameCellEvent) {
		t.Errorf("the cell's events\n got %+v\nwant %+v", got, want)
	}
}

const userCellRun = "run-0a1b2c3d"

// userCellRecord is the record of a notebook cell the user edited at its
// approval, which saved an image.
func userCellRecord(run string) *model.Ran {
	return &model.Ran{By: history.CellNotebook, Of: "nb1", Code: "print('edited')",
		Run: run, Original: "print('asked')", Images: []string{"/ws/images/a.png"}, ElapsedMS: 1500}
}

// userCellExtras holds the checkpoint records of the cell run and of
// another action, other, with sealed as the seal check.
func userCellExtras(run string, sealed func(model.Ran, string) bool) historyExtras {
	changes := map[string]*agent.FilesChanged{}
	for id, ck := range map[string]string{run: "ck1", "other": "ck-other"} {
		changes[id] = &agent.FilesChanged{Meta: agent.Meta{AgentID: agent.MainAgent, CorrelationID: id}, Checkpoint: ck, TurnID: "t1",
			Files: []checkpoint.Change{{Path: "made.txt", Status: "added"}}}
	}
	return historyExtras{changes: changes, sealed: sealed}
}

type cellEvent struct {
	Type          string   `json:"type"`
	CorrelationID string   `json:"correlation_id"`
	Code          string   `json:"code"`
	Images        []string `json:"images"`
	ElapsedMS     int64    `json:"elapsed_ms"`
	Checkpoint    string   `json:"checkpoint"`
}

func sameCellEvent(a, b cellEvent) bool {
	return a.Type == b.Type && a.CorrelationID == b.CorrelationID && a.Code == b.Code && slices.Equal(a.Images, b.Images) &&
		a.ElapsedMS == b.ElapsedMS && a.Checkpoint == b.Checkpoint
}

// userCellShown is what the window is sent of a conversation holding the
// cell of record ran: its events (those with a correlation id).
func userCellShown(t *testing.T, ran *model.Ran, x historyExtras) []cellEvent {
	t.Helper()
	note := "<user-cell source=\"notebook\" of=\"nb1\" status=\"ok\" run=\"" + userCellRun + "\">\n" +
		"The user ran this code in the kernel themselves (it was not a tool call of yours):\n```python\nprint('edited')\n```\n" +
		"Output:\n```\nedited\n```\n</user-cell>"
	msgs := []model.Message{
		{Role: model.RoleUser, Parts: []model.Part{{Text: "Hello.", User: true}}},
		{Role: model.RoleModel, Parts: []model.Part{{Text: "Hi."}}},
		{Role: model.RoleUser, Parts: []model.Part{{Text: note, Ran: ran}}},
	}
	var got []cellEvent
	for _, raw := range historyEvents(msgs, x) {
		var e cellEvent
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatal(err)
		}
		if e.CorrelationID != "" {
			got = append(got, e)
		}
	}
	return got
}

// A session file changed on disk cannot re-point a user's cell at
// another action's checkpoint record (its Review/Revert), nor show a
// false "edited by you" original or other images: a record whose seal
// does not cover it whole (changed since, sealed before records were
// sealed whole, or no agent yet to check it) shows its code and output
// only, under the fallback id, with no files.
func TestHistoryShowsNothingUnsealedOfAUserCell(t *testing.T) {
	key := seal.New([]byte("0123456789abcdef0123456789abcdef"))
	oldKey := seal.New([]byte("another workspace's key, 32 byte"))
	for name, c := range map[string]struct {
		change func(*model.Ran)
		sealed func(model.Ran, string) bool
	}{
		"run re-pointed":  {change: func(r *model.Ran) { r.Run = "other" }, sealed: key.Whole},
		"false original":  {change: func(r *model.Ran) { r.Original = "print('harmless')" }, sealed: key.Whole},
		"other images":    {change: func(r *model.Ran) { r.Images = []string{"/home/u/.ssh/id.png"} }, sealed: key.Whole},
		"other key":       {sealed: oldKey.Whole},
		"no agent yet":    {},
		"seal removed":    {change: func(r *model.Ran) { r.Seal = "" }, sealed: key.Whole},
		"seal downgraded": {change: func(r *model.Ran) { r.Seal = strings.TrimPrefix(r.Seal, "v2:") }, sealed: key.Whole},
	} {
		t.Run(name, func(t *testing.T) {
			ran := userCellRecord(userCellRun)
			key.Sign(ran, "")
			if c.change != nil {
				c.change(ran)
			}
			got := userCellShown(t, ran, userCellExtras(userCellRun, c.sealed))
			want := []cellEvent{
				{Type: "CellStarted", CorrelationID: "history-run-1", Code: "print('edited')"},
				{Type: "CodeExecutionOutput", CorrelationID: "history-run-1"},
			}
			if !slices.EqualFunc(got, want, sameCellEvent) {
				t.Errorf("the cell's events\n got %+v\nwant %+v", got, want)
			}
		})
	}
}
