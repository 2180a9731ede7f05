package agent

import (
	"github.com/freeact/desktop/agent/history"
	"github.com/freeact/desktop/agent/model"
)

// The notes the agent writes into a conversation, and the reading of a
// conversation back (its cells, notes and cut replies), live in
// agent/history; these aliases keep the SDK's part of them reachable as
// agent.Note, agent.Cells, ... .

type (
	Prompt       = history.Prompt
	Cell         = history.Cell
	Note         = history.Note
	NotebookCell = history.NotebookCell
)

const (
	ByEdited         = history.ByEdited
	MaxTokensSetting = history.MaxTokensSetting
	CutNotePrefix    = history.CutNotePrefix
	NoteUserCell     = history.NoteUserCell
	NoteKernelState  = history.NoteKernelState
	NoteVariable     = history.NoteVariable
	NoteNotebook     = history.NoteNotebook
	StateRestarted   = history.StateRestarted
	StateReplayed    = history.StateReplayed
	StateSkipped     = history.StateSkipped
	StateNotRestored = history.StateNotRestored
	CellRerun        = history.CellRerun
	CellNotebook     = history.CellNotebook
	CellReplay       = history.CellReplay
	ExecuteTool      = history.ExecuteTool
	ResetTool        = history.ResetTool
	SubagentTool     = history.SubagentTool
	FailedNotePrefix = history.FailedNotePrefix
	ResumeNotePrefix = history.ResumeNotePrefix
	RevertNotePrefix = history.RevertNotePrefix
)

// Cells is history.Cells.
func Cells(h []model.Message) []Cell { return history.Cells(h) }

// HistoryReplyCut is history.HistoryReplyCut.
func HistoryReplyCut(msgs []model.Message, i int) (*ReplyCut, bool) {
	return history.HistoryReplyCut(msgs, i)
}

// EditedCode is history.EditedCode.
func EditedCode(r model.FunctionResponse) (code, output string, ok bool) {
	return history.EditedCode(r)
}

// ParseNote is history.ParseNote.
func ParseNote(text string) (Note, bool) { return history.ParseNote(text) }

// IsAgentNote is history.IsAgentNote.
func IsAgentNote(text string) bool { return history.IsAgentNote(text) }

// NoteText is history.NoteText.
func NoteText(p model.Part) string { return history.NoteText(p) }

// IsPrompt is history.IsPrompt.
func IsPrompt(m model.Message) bool { return history.IsPrompt(m) }

// Text returns a prompt of text only.
func Text(s string) Prompt { return history.Text(s) }
