package agent_test

import (
	"context"
	agentcells "github.com/freeact/desktop/agent/cells"
	"github.com/freeact/desktop/agent/history"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent"
)

// filesChangedBy returns the FilesChanged event of the cell a CellStarted
// announced, failing the test without one.
func filesChangedBy(t *testing.T, events []agent.Event, index int) *agent.FilesChanged {
	t.Helper()
	started := of[*agent.CellStarted](events)
	if len(started) < index {
		t.Fatalf("%d cells started, want at least %d:%s", len(started), index, describe(events))
	}
	corr := started[index-1].CorrelationID
	for _, fc := range of[*agent.FilesChanged](events) {
		if fc.CorrelationID == corr {
			return fc
		}
	}
	t.Fatalf("no FilesChanged for cell %d (%s):%s", index, corr, describe(events))
	return nil
}

// revertAndCheck reverts checkpoint id and checks that file holds want.
func revertAndCheck(t *testing.T, a *agent.Agent, ws, id, file, want string) {
	t.Helper()
	if _, _, err := a.Revert(context.Background(), id, false); err != nil {
		t.Fatalf("revert %s: %v", id, err)
	}
	if got := readFile(t, ws, file); got != want {
		t.Errorf("after reverting %s, %s = %q, want %q", id, file, got, want)
	}
}

// The user's own cells are checkpointed like the model's code actions, in
// a real kernel: Run again, edit-and-run, Run all of an opened notebook
// and the replay after resume each report the files they changed, the
// batch can be reviewed as a diff and reverted.
func TestUserCellsAreCheckpointed(t *testing.T) {
	if testing.Short() {
		t.Skip("real kernel")
	}
	const appendA = "with open('log.txt', 'a') as f:\n    f.write('a\\n')"
	ws := workspace(t, "")
	writeFiles(t, ws, map[string]string{"log.txt": "start\n"})
	a, _ := realKernels.startIn(t, ws, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "with open('log.txt', 'a') as f:\n    f.write('a\\n')"}}}]
  - reply: [{text: "Done."}]
`)
	run(t, a, "Append a line.", nil)
	if got := readFile(t, ws, "log.txt"); got != "start\na\n" {
		t.Fatalf("after the turn log.txt = %q", got)
	}

	// Run again: the model's cell, as it was.
	events := runCells(t, a.RunCells(userCtx(t), []agentcells.UserCell{{Code: appendA, Source: history.CellRerun, Of: "c1"}}), nil)
	fc := filesChangedBy(t, events, 1)
	if got := statusList(fc.Files); !slices.Equal(got, []string{"modified log.txt"}) || fc.TurnID == "" {
		t.Fatalf("Run again: FilesChanged %+v", fc)
	}
	records, err := a.Checkpoints().Find(fc.TurnID)
	if err != nil || len(records) != 1 || records[0].Call != fc.CorrelationID || records[0].Label != "with open('log.txt', 'a') as f: …" ||
		records[0].Prompt != "Ran a cell again" {
		t.Fatalf("Run again's records %+v, %v", records, err)
	}
	diffs, err := a.Checkpoints().Diff(context.Background(), records)
	if err != nil || len(diffs) != 1 || !strings.HasSuffix(diffs[0].Diff, " start\n a\n+a\n") {
		t.Errorf("Run again's diff %+v, %v", diffs, err)
	}
	revertAndCheck(t, a, ws, fc.TurnID, "log.txt", "start\na\n")

	// Edit and run: other code in the place of the model's cell.
	events = runCells(t, a.RunCells(userCtx(t), []agentcells.UserCell{{Code: "open('new.txt', 'w').write('edited')", Source: history.CellRerun, Of: "c1"}}), nil)
	fc = filesChangedBy(t, events, 1)
	if got := statusList(fc.Files); !slices.Equal(got, []string{"added new.txt"}) {
		t.Fatalf("edit and run: FilesChanged %+v", fc)
	}
	revertAndCheck(t, a, ws, fc.Checkpoint, "new.txt", "<missing>")

	// Run all of an opened notebook: each cell its own record, one batch.
	nb := `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
 {"cell_type": "code", "id": "w", "metadata": {}, "execution_count": null, "outputs": [], "source": "open('nb.txt', 'w').write('1')"},
 {"cell_type": "code", "id": "v", "metadata": {}, "execution_count": null, "outputs": [], "source": "print('reads only')"},
 {"cell_type": "code", "id": "z", "metadata": {}, "execution_count": null, "outputs": [], "source": "open('log.txt', 'a').write('nb\\n')"}]}`
	if err := os.WriteFile(filepath.Join(ws, "run.ipynb"), []byte(nb), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := a.OpenNotebook(filepath.Join(ws, "run.ipynb")); err != nil {
		t.Fatal(err)
	}
	events = runCells(t, a.RunNotebook(userCtx(t)), nil)
	first, third := filesChangedBy(t, events, 1), filesChangedBy(t, events, 3)
	if got := statusList(first.Files); !slices.Equal(got, []string{"added nb.txt"}) || first.TurnID != third.TurnID ||
		!slices.Equal(statusList(third.Files), []string{"modified log.txt"}) || len(of[*agent.FilesChanged](events)) != 2 {
		t.Fatalf("Run all: FilesChanged %+v and %+v:%s", first, third, describe(events))
	}
	if records, err := a.Checkpoints().Find(first.TurnID); err != nil || len(records) != 2 || records[0].Prompt != "Ran 3 notebook cells" {
		t.Fatalf("Run all's records %+v, %v", records, err)
	}
	revertAndCheck(t, a, ws, first.TurnID, "log.txt", "start\na\n")
	if got := readFile(t, ws, "nb.txt"); got != "<missing>" {
		t.Errorf("after reverting Run all nb.txt = %q", got)
	}

	// Replay after resume: the model's cell runs again and is recorded.
	id := a.SessionID()
	if err := a.Stop(); err != nil {
		t.Fatal(err)
	}
	b, _ := realKernels.startIn(t, ws, "turns: []\n", agent.WithSessionID(id))
	offer, ok := b.ReplayOffer()
	if !ok || len(offer.Cells) == 0 || offer.Cells[0].Code != appendA {
		t.Fatalf("replay offer %+v, %v; want the model's cell first", offer, ok)
	}
	events = runCells(t, b.Replay(userCtx(t)), nil)
	fc = filesChangedBy(t, events, 1)
	if got := statusList(fc.Files); !slices.Equal(got, []string{"modified log.txt"}) {
		t.Fatalf("replay: FilesChanged %+v", fc)
	}
	if records, err := b.Checkpoints().Find(fc.TurnID); err != nil || len(records) == 0 || records[0].Prompt != "Replayed "+agentcells.Plural(len(offer.Cells), "cell")+" to restore the kernel" {
		t.Fatalf("the replay's records %+v, %v", records, err)
	}
	revertAndCheck(t, b, ws, fc.TurnID, "log.txt", "start\na\n")
}
