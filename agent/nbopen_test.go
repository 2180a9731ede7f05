package agent_test

import (
	"github.com/freeact/desktop/agent/history"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent"
)

// copyNotebook puts testdata/notebooks/analysis.ipynb into ws.
func copyNotebook(t *testing.T, ws string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "notebooks", "analysis.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(ws, "analysis.ipynb")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A notebook opened at the start of a session becomes context the model
// sees; "Run all" runs its code cells, each approved as a code action, and
// the model sees what ran.
func TestOpenAndRunNotebook(t *testing.T) {
	tiers(t, arithmetic, func(t *testing.T, x tier) {
		ws := workspace(t, "")
		a, fake := x.startIn(t, ws, `
turns:
  - expect:
      has:
        - {role: user, text: "<notebook path=\"analysis.ipynb\" cells=\"3\">"}
        - {role: user, text: "# Temperatures"}
        - {role: user, text: "Output when the notebook was saved:\n`+"```"+`\n21"}
      last:
        - {role: user, text: "source=\"notebook\" of=\"nb-4\" status=\"ok\""}
        - {role: user, text: "What does it compute?"}
    reply: [{text: "x + 1, which is 21."}]
`)
		cells, err := a.OpenNotebook(copyNotebook(t, ws))
		if err != nil {
			t.Fatal(err)
		}
		if len(cells) != 3 || cells[0].Type != "markdown" || cells[1].ID != "nb-2" || cells[2].Output != "21\n" {
			t.Fatalf("cells %+v (the raw cell is left out)", cells)
		}
		var asked []string
		events := runCells(t, a.RunNotebook(userCtx(t)), func(r *agent.ApprovalRequest) agent.Decision {
			if c, ok := r.ToolCall.(agent.CodeAction); ok {
				asked = append(asked, c.Code)
			}
			return agent.Once
		})
		if strings.Join(asked, "|") != "x = 20|print(x + 1)" {
			t.Errorf("approvals %q, want each code cell", asked)
		}
		outs := of[*agent.CodeExecutionOutput](events)
		if len(outs) != 2 || strings.TrimSpace(outs[1].Text) != "21" {
			t.Fatalf("outputs:%s", describe(events))
		}
		started := of[*agent.CellStarted](events)
		if len(started) != 2 || started[1].Of != "nb-4" || started[1].Source != history.CellNotebook {
			t.Errorf("CellStarted %+v", started)
		}
		if len(fake.Requests()) != 0 {
			t.Errorf("opening and running the notebook called the model")
		}
		run(t, a, "What does it compute?", nil)
	})
}

// A "no" to a notebook cell stops the rest.
func TestRunNotebookStopsAtNo(t *testing.T) {
	ws := workspace(t, "")
	a, _ := fakeKernels(arithmetic).startIn(t, ws, "turns: []\n")
	if _, err := a.OpenNotebook(copyNotebook(t, ws)); err != nil {
		t.Fatal(err)
	}
	n := 0
	events := runCells(t, a.RunNotebook(userCtx(t)), func(r *agent.ApprovalRequest) agent.Decision {
		n++
		return agent.Reject
	})
	if n != 1 {
		t.Errorf("%d approvals asked, want one before the batch stops", n)
	}
	if f := of[*agent.CellsFinished](events); len(f) != 1 || f[0].Ran != 0 || !f[0].Stopped {
		t.Errorf("CellsFinished %+v", f)
	}
	if len(history.Cells(a.History())) != 0 {
		t.Error("a rejected cell was recorded as run")
	}
}

func TestOpenNotebookErrors(t *testing.T) {
	ws := workspace(t, "")
	a, _ := fakeKernels(nil).startIn(t, ws, "turns: []\n")
	for name, content := range map[string]string{
		"v3.ipynb":    `{"nbformat": 3, "nbformat_minor": 0, "worksheets": []}`,
		"text.ipynb":  `not json`,
		"empty.ipynb": `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": []}`,
	} {
		p := filepath.Join(ws, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := a.OpenNotebook(p); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v, want an error naming the file", name, err)
		}
	}
	if _, err := a.OpenNotebook(filepath.Join(ws, "missing.ipynb")); err == nil {
		t.Error("a missing notebook opened")
	}
	if events := runCells(t, a.RunNotebook(userCtx(t)), nil); len(of[*agent.Failed](events)) != 1 {
		t.Errorf("RunNotebook without a notebook:%s", describe(events))
	}
}
