package agent_test

import (
	agentcells "github.com/freeact/desktop/agent/cells"
	"github.com/freeact/desktop/agent/history"
	"slices"
	"testing"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/agenttest"
)

// A cell the user ran keeps in the session what it showed: the id it ran
// under (which its checkpoint record holds), the code as asked before the
// user edited it, its images and its time, as structured fields of its
// record; a resumed session's Cells give them back.
func TestResumedUserCellKeepsWhatItShowed(t *testing.T) {
	png := tinyPNG(t)
	ws := workspace(t, "")
	a, _ := fakeKernels(cells{"print('edited')": func(c *agenttest.Cell) {
		c.Print("edited")
		c.Image(png)
		touch(c, "made.txt")
	}}).startIn(t, ws, "turns: []")
	events := runCells(t, a.RunCells(userCtx(t), []agentcells.UserCell{{Code: "print('asked')", Source: history.CellNotebook, Of: "nb1", Ask: true}}),
		func(r *agent.ApprovalRequest) agent.Decision {
			r.Edit("print('edited')")
			return agent.Once
		})
	started := of[*agent.CellStarted](events)
	outs := of[*agent.CodeExecutionOutput](events)
	if len(started) != 1 || len(outs) != 1 || len(outs[0].Images) != 1 || len(of[*agent.CodeEdited](events)) != 1 {
		t.Fatalf("the cell did not run edited with an image:%s", describe(events))
	}
	run := started[0].CorrelationID
	fc := filesChangedBy(t, events, 1)
	id := a.SessionID()
	if err := a.Stop(); err != nil {
		t.Fatal(err)
	}

	b, _ := fakeKernels(nil).startIn(t, ws, "turns: []", agent.WithSessionID(id))
	cs := history.Cells(b.History())
	if len(cs) != 1 {
		t.Fatalf("resumed cells %+v", cs)
	}
	c := cs[0]
	if c.Run != run || c.Code != "print('edited')" || c.Original != "print('asked')" || !slices.Equal(c.Images, outs[0].Images) || c.ElapsedMS <= 0 {
		t.Errorf("resumed cell %+v, want run %s, the edit of print('asked'), images %v and a time", c, run, outs[0].Images)
	}
	records, err := b.Checkpoints().Find(fc.TurnID)
	if err != nil || len(records) != 1 || records[0].Call != c.Run {
		t.Errorf("the checkpoint records of the cell %+v, %v: want one under %s", records, err, c.Run)
	}
}
