// Package history owns what the agent writes into a conversation besides
// the model's turns, and the reading of a conversation back: the notes
// about what the user did with the kernel, the tagged notes of reverts,
// cut replies and failed turns, the names of the built-in tools, the cells
// of a conversation and the replay plan, and which messages are prompts.
// It imports no part of the agent above agent/event.
package history

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/notebook"
)

// Notes are what the agent writes into the conversation about what the
// user did with the kernel, so that the model knows: code the user edited
// before approving it, cells the user ran, the kernel's state restored or
// lost, a variable the prompt mentions, a notebook the session started
// from. Each is a text part in a tagged form the model reads easily and
// ParseNote reads back exactly (code and output sit in fences longer than
// any run of backticks inside them), for the window and exports. Replays
// read the code that ran from the sealed record beside a note
// (model.Ran), never from its text.

// Kinds of notes.
const (
	NoteUserCell    = "user-cell"
	NoteKernelState = "kernel-state"
	NoteVariable    = "variable"
	NoteNotebook    = "notebook"
)

// Kernel state events a NoteKernelState records.
const (
	StateRestarted   = "restarted"    // the user restarted the kernel
	StateReplayed    = "replayed"     // the user replayed the session's cells
	StateSkipped     = "skipped"      // the user chose not to restore the state
	StateNotRestored = "not-restored" // the user went on without restoring it
)

// Note is a note read back from a conversation.
type Note struct {
	Kind string
	// A user cell: its source (CellRerun or CellNotebook), the id of the
	// cell it ran again or of its notebook cell, the code, its output and
	// whether it failed.
	Source, Of   string
	Code, Output string
	Error        bool
	// Run is the id the cell ran under (its checkpoint records' call).
	Run string
	// A kernel state note: the event, and for a replay how many cells ran
	// of how many planned.
	Event        string
	Ran, Planned int
	// Text is what a kernel state or variable note says.
	Text string
	// Name of a variable note.
	Name string
	// Path and cells of a notebook note.
	Path  string
	Cells []NotebookCell
}

// NotebookCell is a cell of a notebook the user opened.
type NotebookCell struct {
	ID   string `json:"id"`
	Type string `json:"type"` // "markdown" or "code"
	// Source is the cell's text.
	Source string `json:"source"`
	// Output is the text the cell had when the notebook was saved, cut to
	// 2,000 characters; images are left out.
	Output string `json:"output,omitempty"`
}

func Fenced(text, lang string) string {
	f := notebook.Fence(text)
	return f + lang + "\n" + strings.TrimSuffix(text, "\n") + "\n" + f
}

// readFence reads a Fenced block starting at lines[i] with the info
// string lang; it returns the content and the index after the closing
// fence.
func readFence(lines []string, i int, lang string) (string, int, bool) {
	if i >= len(lines) {
		return "", i, false
	}
	open := lines[i]
	ticks := strings.TrimSuffix(open, lang)
	if len(ticks) < 3 || strings.Trim(ticks, "`") != "" || len(ticks)+len(lang) != len(open) {
		return "", i, false
	}
	for j := i + 1; j < len(lines); j++ {
		if lines[j] == ticks {
			return strings.Join(lines[i+1:j], "\n"), j + 1, true
		}
	}
	return "", i, false
}

const (
	editedOpen  = "<edited-by-user>"
	editedClose = "</edited-by-user>"
	editedSays  = "The user edited your code before running it; this code ran instead of yours:"
)

// EditedResult is the result of a code action the user edited: a note with
// the code that ran, then its output.
func EditedResult(code, output string) string {
	return editedOpen + "\n" + editedSays + "\n" + Fenced(code, "python") + "\n" + editedClose + "\n" + output
}

// EditedCode returns the code that ran for the result r of a code action
// the user edited before approving it, and the output that followed the
// note saying so; ok is false for other results. It reads the result's
// record (model.Ran), never its text: output that imitates the note is
// output.
func EditedCode(r model.FunctionResponse) (code, output string, ok bool) {
	if r.Ran == nil || r.Ran.By != ByEdited {
		return "", "", false
	}
	return r.Ran.Code, strings.TrimPrefix(r.Output, EditedResult(r.Ran.Code, "")), true
}

// Sources of cells the user runs.
const (
	CellRerun    = "rerun"    // a past cell, as it was or edited
	CellNotebook = "notebook" // a cell of a notebook the user opened
	CellReplay   = "replay"   // one of the cells replayed to restore the kernel's state
)

var userCellRE = regexp.MustCompile(`^<user-cell source="([a-z]+)"(?: of="([^"]*)")? status="(ok|error)"(?: run="(run-[0-9a-f]+)")?>$`)

// UserCellNote records a cell the user ran; run is the id it ran under
// (its checkpoint records' call), "" for none.
func UserCellNote(source, of, run, code, output string, failed bool) string {
	status := "ok"
	if failed {
		status = "error"
	}
	attrOf := ""
	if of != "" {
		attrOf = fmt.Sprintf(" of=%q", of)
	}
	var b strings.Builder
	attrRun := ""
	if run != "" {
		attrRun = fmt.Sprintf(" run=%q", run)
	}
	fmt.Fprintf(&b, "<user-cell source=%q%s status=%q%s>\n", source, attrOf, status, attrRun)
	b.WriteString("The user ran this code in the kernel themselves (it was not a tool call of yours):\n")
	b.WriteString(Fenced(code, "python") + "\n")
	switch {
	case failed:
		b.WriteString("It failed:\n" + Fenced(output, "") + "\n")
	case strings.TrimSpace(output) == "":
		b.WriteString("It printed nothing.\n")
	default:
		b.WriteString("Output:\n" + Fenced(output, "") + "\n")
	}
	b.WriteString("</user-cell>")
	return b.String()
}

var stateRE = regexp.MustCompile(`^<kernel-state event="([a-z-]+)"(?: ran="(\d+)" of="(\d+)")?>([\s\S]*)</kernel-state>$`)

// StateNote records what happened to the kernel's state; ran and planned
// count a replay's cells.
func StateNote(event, text string, ran, planned int) string {
	counts := ""
	if event == StateReplayed {
		counts = fmt.Sprintf(" ran=\"%d\" of=\"%d\"", ran, planned)
	}
	return fmt.Sprintf("<kernel-state event=%q%s>%s</kernel-state>", event, counts, text)
}

var variableRE = regexp.MustCompile(`^<variable name="([^"]+)">\n([\s\S]*)\n</variable>$`)

// VariableNote tells the model about a variable the prompt mentions.
func VariableNote(name, text string) string {
	return fmt.Sprintf("<variable name=%q>\n%s\n</variable>", name, strings.TrimRight(text, "\n"))
}

var (
	notebookRE     = regexp.MustCompile(`^<notebook path="([^"]*)" cells="(\d+)">$`)
	notebookCellRE = regexp.MustCompile(`^Cell ([\w.-]+) \((markdown|code)\):$`)
)

// IsNoteCellID reports whether id can name a cell in a notebook note as
// ParseNote reads it back.
func IsNoteCellID(id string) bool { return notebookCellRE.MatchString("Cell " + id + " (code):") }

const (
	notebookSays    = "The user opened this notebook to start the session; its cells follow. Its code has not run in this kernel unless a later message says so."
	savedOutputSays = "Output when the notebook was saved:"
)

// NotebookNote gives the model the cells of a notebook the user opened.
func NotebookNote(path string, cells []NotebookCell) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<notebook path=%q cells=\"%d\">\n%s\n", path, len(cells), notebookSays)
	for _, c := range cells {
		lang := "python"
		if c.Type != notebook.Code {
			lang = "markdown"
		}
		fmt.Fprintf(&b, "Cell %s (%s):\n%s\n", c.ID, c.Type, Fenced(c.Source, lang))
		if c.Output != "" {
			b.WriteString(savedOutputSays + "\n" + Fenced(c.Output, "") + "\n")
		}
	}
	b.WriteString("</notebook>")
	return b.String()
}

// ParseNote reads a note the agent wrote into a user message; ok is false
// for anything else (what the user typed).
func ParseNote(text string) (Note, bool) {
	switch {
	case strings.HasPrefix(text, "<user-cell "):
		return parseUserCell(text)
	case strings.HasPrefix(text, "<kernel-state "):
		m := stateRE.FindStringSubmatch(text)
		if m == nil {
			return Note{}, false
		}
		n := Note{Kind: NoteKernelState, Event: m[1], Text: m[4]}
		n.Ran, _ = strconv.Atoi(m[2])
		n.Planned, _ = strconv.Atoi(m[3])
		return n, true
	case strings.HasPrefix(text, "<variable "):
		m := variableRE.FindStringSubmatch(text)
		if m == nil {
			return Note{}, false
		}
		return Note{Kind: NoteVariable, Name: m[1], Text: m[2]}, true
	case strings.HasPrefix(text, "<notebook "):
		return parseNotebookNote(text)
	}
	return Note{}, false
}

func parseUserCell(text string) (Note, bool) {
	lines := strings.Split(text, "\n")
	if len(lines) < 4 || lines[len(lines)-1] != "</user-cell>" {
		return Note{}, false
	}
	m := userCellRE.FindStringSubmatch(lines[0])
	if m == nil {
		return Note{}, false
	}
	n := Note{Kind: NoteUserCell, Source: m[1], Of: m[2], Error: m[3] == "error", Run: m[4]}
	code, i, ok := readFence(lines, 2, "python")
	if !ok || i >= len(lines) {
		return Note{}, false
	}
	n.Code = code
	switch lines[i] {
	case "It printed nothing.":
		i++
	case "It failed:", "Output:":
		if n.Output, i, ok = readFence(lines, i+1, ""); !ok {
			return Note{}, false
		}
	default:
		return Note{}, false
	}
	if i != len(lines)-1 {
		return Note{}, false
	}
	return n, true
}

func parseNotebookNote(text string) (Note, bool) {
	lines := strings.Split(text, "\n")
	if len(lines) < 3 || lines[len(lines)-1] != "</notebook>" || lines[1] != notebookSays {
		return Note{}, false
	}
	m := notebookRE.FindStringSubmatch(lines[0])
	if m == nil {
		return Note{}, false
	}
	n := Note{Kind: NoteNotebook, Path: m[1]}
	for i := 2; i < len(lines)-1; {
		cm := notebookCellRE.FindStringSubmatch(lines[i])
		if cm == nil {
			return Note{}, false
		}
		lang := "python"
		if cm[2] != notebook.Code {
			lang = "markdown"
		}
		src, next, ok := readFence(lines, i+1, lang)
		if !ok {
			return Note{}, false
		}
		c := NotebookCell{ID: cm[1], Type: cm[2], Source: src}
		if next < len(lines) && lines[next] == savedOutputSays {
			if c.Output, next, ok = readFence(lines, next+1, ""); !ok {
				return Note{}, false
			}
		}
		n.Cells = append(n.Cells, c)
		i = next
	}
	if want, _ := strconv.Atoi(m[2]); want != len(n.Cells) {
		return Note{}, false
	}
	return n, true
}

// MergeUserTurns joins adjacent user messages that hold no tool results
// (notes recorded between turns, then the prompt) into one, so requests
// alternate between the user and the model as every provider expects.
func MergeUserTurns(msgs []model.Message) []model.Message {
	plain := func(m model.Message) bool { return m.Role == model.RoleUser && len(m.FunctionResponses()) == 0 }
	out := make([]model.Message, 0, len(msgs))
	for _, m := range msgs {
		if n := len(out); n > 0 && plain(m) && plain(out[n-1]) {
			prev := out[n-1]
			prev.Parts = append(append([]model.Part(nil), prev.Parts...), m.Parts...)
			out[n-1] = prev
			continue
		}
		out = append(out, m)
	}
	return out
}

// IsAgentNote reports text the agent added to the conversation for the
// model (what the user reverted, a note ParseNote reads), which front ends
// do not show as the prompt.
func IsAgentNote(text string) bool {
	if _, ok := TaggedNote(text); ok {
		return true
	}
	_, ok := ParseNote(text)
	return ok
}

// NoteText is the text of p to read as a note of the agent's (with
// ParseNote, IsAgentNote and the tags): "" for the text the user sent
// (model.Part.User), whatever it starts with.
func NoteText(p model.Part) string {
	if p.User {
		return ""
	}
	return p.Text
}

// TaggedNote returns the text inside a note the agent wrote for the model
// in a tag of its own: what the user reverted (<workspace-revert>), a reply
// cut at max_tokens (<reply-cut>), a turn that failed after its actions
// (<turn-failed>) and the carrying on with it (<turn-resumed>).
func TaggedNote(text string) (string, bool) {
	for _, prefix := range []string{RevertNotePrefix, CutNotePrefix, FailedNotePrefix, ResumeNotePrefix} {
		if inner, ok := strings.CutPrefix(text, prefix); ok {
			tag := strings.TrimSuffix(strings.TrimPrefix(prefix, "<"), ">\n")
			return strings.TrimSpace(strings.TrimSuffix(inner, "</"+tag+">")), true
		}
	}
	return "", false
}

// IsPrompt reports a message the user sent: a user message without tool
// results that holds more than the agent's notes (the cells the user ran
// between turns and kernel state changes are recorded as user messages of
// notes alone). Turns are counted by their prompts.
func IsPrompt(m model.Message) bool {
	if m.Role != model.RoleUser || len(m.FunctionResponses()) > 0 {
		return false
	}
	for _, p := range m.Parts {
		if p.Image != nil || (p.Text != "" && !IsAgentNote(NoteText(p))) {
			return true
		}
	}
	return false
}

// FailedNotePrefix starts the note that ends a turn which failed after
// its actions ran.
const FailedNotePrefix = "<turn-failed>\n"

// ResumeNotePrefix starts the note that asks the model to carry on with a
// turn that failed (Continue).
const ResumeNotePrefix = "<turn-resumed>\n"

// RevertNotePrefix starts the part of a prompt that tells the model about
// reverted files; front ends leave it out of the prompt they show.
const RevertNotePrefix = "<workspace-revert>\n"

// Names of the built-in tools as the model sees them.
const (
	ExecuteTool  = "ipybox_execute_ipython_cell"
	ResetTool    = "ipybox_reset"
	SubagentTool = "subagent_task"
)

// Prompt is what the user sends: text, optionally with images.
type Prompt struct {
	Text   string
	Images []model.Image
}

// Text returns a prompt of text only.
func Text(s string) Prompt { return Prompt{Text: s} }
