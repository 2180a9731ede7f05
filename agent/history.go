package agent

import (
	"github.com/freeact/desktop/agent/history"
	"github.com/freeact/desktop/agent/model"
)

// The notes the agent writes into a conversation, and the reading of a
// conversation back (its cells, notes and cut replies), live in
// agent/history; these aliases keep the names the agent's own API speaks
// reachable as agent.Prompt, agent.ExecuteTool, ... .

type (
	Prompt       = history.Prompt
	Cell         = history.Cell
	NotebookCell = history.NotebookCell
)

const (
	ByEdited         = history.ByEdited
	StateRestarted   = history.StateRestarted
	ExecuteTool      = history.ExecuteTool
	ResetTool        = history.ResetTool
	SubagentTool     = history.SubagentTool
	FailedNotePrefix = history.FailedNotePrefix
	ResumeNotePrefix = history.ResumeNotePrefix
)

// NoteText is history.NoteText.
func NoteText(p model.Part) string { return history.NoteText(p) }

// IsPrompt is history.IsPrompt.
func IsPrompt(m model.Message) bool { return history.IsPrompt(m) }

// Text returns a prompt of text only.
func Text(s string) Prompt { return history.Text(s) }
