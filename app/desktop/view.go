package desktop

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"github.com/freeact/desktop/agent/history"
	"github.com/freeact/desktop/agent/longsession"
	"strings"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/checkpoint"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/app/adapter"
)

// Synthetic events: the app's own additions to the agent's event stream, in
// the same JSON shape ("type", "agent_id", ...), so the frontend reduces one
// stream for live turns and for resumed history alike.

// userMessage is the user's prompt as the conversation shows it.
type userMessage struct {
	Type    string   `json:"type"` // "UserMessage"
	AgentID string   `json:"agent_id"`
	Text    string   `json:"text"`
	Images  []string `json:"images,omitempty"` // data URLs of attached images
	// Turn is the prompt's number in the session (from 1): forks and
	// edits name the prompt by it.
	Turn int `json:"turn"`
}

// toolCallEvent is a tool call from history: live turns show calls through
// their ApprovalRequest, which history does not keep.
type toolCallEvent struct {
	Type          string          `json:"type"` // "ToolCall"
	AgentID       string          `json:"agent_id"`
	CorrelationID string          `json:"correlation_id"`
	ToolName      string          `json:"tool_name"`
	Args          json.RawMessage `json:"args"`
}

// approvedEvent is who let a call from history run without a click (its
// record's model.Approved), as the AutoApproved of a live turn said: the
// window shows the same badge. History marks it as resumed, not new.
type approvedEvent struct {
	Type          string `json:"type"` // "AutoApproved"
	AgentID       string `json:"agent_id"`
	CorrelationID string `json:"correlation_id"`
	model.Approved
	History bool `json:"history"`
}

// turnMarker starts or ends a turn.
type turnMarker struct {
	Type    string `json:"type"` // "TurnStarted" or "TurnEnded"
	AgentID string `json:"agent_id"`
	// History is set on markers of a resumed session's past turns.
	History bool `json:"history,omitempty"`
}

// resetEvent empties the conversation view: a new or another session
// follows.
var resetEvent = json.RawMessage(`{"type":"Reset","agent_id":"main"}`)

func dataURL(im model.Image) string {
	return "data:" + im.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(im.Data)
}

func userEvent(text string, images []model.Image, turn int) json.RawMessage {
	u := userMessage{Type: "UserMessage", AgentID: agent.MainAgent, Text: text, Turn: turn}
	for _, im := range images {
		u.Images = append(u.Images, dataURL(im))
	}
	return adapter.MustJSON(u)
}

func marshalEvent(ev agent.Event) json.RawMessage {
	b, err := agent.MarshalEvent(ev)
	if err != nil {
		return adapter.MustJSON(map[string]string{"type": "Failed", "agent_id": agent.MainAgent, "error": err.Error()})
	}
	return b
}

// notebookOpened shows the cells of a notebook the session started from.
type notebookOpened struct {
	Type    string               `json:"type"` // "NotebookOpened"
	AgentID string               `json:"agent_id"`
	Path    string               `json:"path"`
	Cells   []agent.NotebookCell `json:"cells"`
}

func notebookEvent(path string, cells []agent.NotebookCell) json.RawMessage {
	return adapter.MustJSON(notebookOpened{Type: "NotebookOpened", AgentID: agent.MainAgent, Path: path, Cells: cells})
}

// historyExtras are what a saved conversation's events show beyond its
// messages: compactions (before the message at their index), the files
// each tool call changed (by call id) and where the session stands.
type historyExtras struct {
	compactions []longsession.HistoryCompaction
	// failed are the "Compact now"s that failed, with their paid calls.
	failed  []longsession.FailedCompaction
	changes map[string]*agent.FilesChanged
	// sealed says whether a record of code that ran is whole as the app
	// wrote it (Agent.SealedWhole); nil (no agent yet): none is.
	sealed func(r model.Ran, callID string) bool
	usage  *agent.SessionUsage
	// price gives a call's cost (nil: unknown, as without it).
	price func(modelName string, u model.Usage) *float64
}

// extrasOf are the extras that cfg alone gives a saved conversation: what
// each call cost.
func extrasOf(cfg *config.Config) historyExtras {
	return historyExtras{
		price: func(modelName string, u model.Usage) *float64 { return cfg.PriceOf(modelName, u) },
	}
}

func (x historyExtras) cost(modelName string, u model.Usage) *float64 {
	if x.price == nil {
		return nil
	}
	return x.price(modelName, u)
}

// agentHistory renders the agent's conversation with its extras: its
// compactions, the files its calls changed (with the reverts that took
// them back) and the session's usage.
func agentHistory(a *agent.Agent, cfg *config.Config) []json.RawMessage {
	x := extrasOf(cfg)
	x.compactions, x.failed, x.usage, x.price = a.Compactions(), a.FailedCompactions(), a.SessionUsage(), a.CostOf
	x.changes = map[string]*agent.FilesChanged{}
	x.sealed = a.SealedWhole
	if store := a.Checkpoints(); store != nil {
		if rs, err := store.Records(); err == nil {
			reverted := checkpoint.RevertedBy(rs)
			for _, r := range rs {
				if r.Kind != checkpoint.KindAction || r.Call == "" || r.Agent != agent.MainAgent || r.Session != a.SessionID() {
					continue
				}
				x.changes[r.Call] = &agent.FilesChanged{
					Meta: agent.Meta{AgentID: agent.MainAgent, CorrelationID: r.Call}, Checkpoint: r.ID, TurnID: r.TurnID,
					Files: r.Changes, RevertedBy: reverted[r.ID], Late: r.Late,
				}
			}
		}
	}
	return historyEvents(a.History(), x)
}

// historyEvents renders a saved conversation as the events a live turn would
// have shown: prompts, thoughts, responses, tool calls and their results,
// the files they changed, compactions, the token usage of each model
// message and the notice of a reply cut at the output token limit. Each user prompt starts a turn. The agent's notes show as what
// made them: the code a user edited, the cells the user ran, kernel state
// changes, an opened notebook.
func historyEvents(msgs []model.Message, x historyExtras) []json.RawMessage {
	var out []json.RawMessage
	main := agent.Meta{AgentID: agent.MainAgent}
	open := false
	// rejected: the last results held a call the user rejected, which
	// ended the turn with the app's fixed answer (not kept in the file).
	rejected := false
	end := func() {
		if rejected {
			out = append(out, marshalEvent(&agent.Response{Meta: main, Text: agent.RejectedText}))
			rejected = false
		}
		if open {
			out = append(out, adapter.MustJSON(turnMarker{Type: "TurnEnded", AgentID: agent.MainAgent, History: true}))
			open = false
		}
	}
	usage := func(modelName string, us []model.Usage) {
		for _, u := range us {
			out = append(out, marshalEvent(&agent.Usage{Meta: main, Model: modelName, Usage: u, Cost: x.cost(modelName, u)}))
		}
	}
	// A compaction between turns shows as a turn of its own, with what
	// its calls cost, as "Compact now" did live; within a turn its calls
	// count in the turn's.
	compaction := func(c longsession.HistoryCompaction) {
		if !open && len(c.Usage) > 0 {
			out = append(out, adapter.MustJSON(turnMarker{Type: "TurnStarted", AgentID: agent.MainAgent, History: true}))
			defer end()
			open = true
		}
		usage(c.Model, c.Usage)
		ev := c.Event
		out = append(out, marshalEvent(&ev))
	}
	failed := x.failed
	failures := func(upto int) {
		for ; len(failed) > 0 && failed[0].Index <= upto; failed = failed[1:] {
			end()
			out = append(out, adapter.MustJSON(turnMarker{Type: "TurnStarted", AgentID: agent.MainAgent, History: true}))
			open = true
			usage(failed[0].Model, failed[0].Usage)
			if f := failed[0].Failed; !failed[0].Retried {
				out = append(out, marshalEvent(&f))
			}
			end()
		}
	}
	turn, runs := 0, 0
	comps := x.compactions
	for i, m := range msgs {
		for len(comps) > 0 && comps[0].Index <= i {
			if agent.IsPrompt(m) {
				end() // compacted between turns
			}
			compaction(comps[0])
			comps = comps[1:]
		}
		if agent.IsPrompt(m) {
			failures(i)
		}
		if len(m.FunctionResponses()) > 0 {
			for _, r := range m.FunctionResponses() {
				meta := agent.Meta{AgentID: agent.MainAgent, CorrelationID: r.ID}
				content := r.Output
				if code, output, ok := history.EditedCode(r); ok && r.Name == agent.ExecuteTool {
					out = append(out, marshalEvent(&agent.CodeEdited{Meta: meta, Code: code}))
					content = output
				}
				if by := history.ApprovedBy(r, x.sealed); by != nil {
					out = append(out, adapter.MustJSON(approvedEvent{Type: "AutoApproved", AgentID: agent.MainAgent, CorrelationID: r.ID, Approved: *by, History: true}))
				}
				out = append(out, marshalEvent(&agent.ToolOutput{Meta: meta, ToolName: r.Name, Content: content, IsError: r.IsError, ElapsedMS: r.ElapsedMS, SavedPath: r.SavedPath}))
				if fc := x.changes[r.ID]; fc != nil {
					out = append(out, marshalEvent(fc))
				}
				rejected = rejected || history.IsRejection(r)
			}
			continue
		}
		if m.Role == model.RoleUser {
			var imgs []model.Image
			var text []string
			var notes []json.RawMessage
			for _, p := range m.Parts {
				if p.Image != nil {
					if model.IsImage(p.Image.MIMEType) { // PDFs and audio are not shown inline
						imgs = append(imgs, *p.Image)
					}
					continue
				}
				if p.Text == "" {
					continue
				}
				n, ok := history.ParseNote(agent.NoteText(p))
				switch {
				case !ok:
					if reason, failed := history.FailedNoteError(agent.NoteText(p)); failed {
						// The turn failed after its actions ran, as it did live.
						notes = append(notes, marshalEvent(&agent.Failed{Meta: main, Error: reason, Summary: "The turn ended early: " + reason, Kept: true}))
					} else if !history.IsAgentNote(agent.NoteText(p)) {
						text = append(text, p.Text)
					}
				case n.Kind == history.NoteUserCell:
					runs++
					notes = append(notes, userCellEvents(n, p.Ran, x.sealed, fmt.Sprintf("history-run-%d", runs), x.changes)...)
				case n.Kind == history.NoteKernelState:
					notes = append(notes, marshalEvent(&agent.KernelStateNote{Meta: main, Event: n.Event, Text: n.Text}))
				case n.Kind == history.NoteNotebook:
					notes = append(notes, notebookEvent(n.Path, n.Cells))
				}
			}
			if agent.IsPrompt(m) {
				end()
				turn++
				out = append(out, adapter.MustJSON(turnMarker{Type: "TurnStarted", AgentID: agent.MainAgent, History: true}))
				open = true
				out = append(out, userEvent(strings.Join(text, "\n"), imgs, turn))
			}
			out = append(out, notes...)
			continue
		}
		rejected = false // the model went on
		for _, p := range m.Parts {
			switch {
			case p.FunctionCall != nil:
				out = append(out, adapter.MustJSON(toolCallEvent{
					Type: "ToolCall", AgentID: agent.MainAgent, CorrelationID: p.FunctionCall.ID,
					ToolName: p.FunctionCall.Name, Args: p.FunctionCall.Args,
				}))
			case p.Thought && p.Text != "":
				out = append(out, marshalEvent(&agent.Thoughts{Meta: main, Text: p.Text}))
			case p.Text != "":
				out = append(out, marshalEvent(&agent.Response{Meta: main, Text: p.Text}))
			}
		}
		if cut, ok := history.HistoryReplyCut(msgs, i); ok {
			out = append(out, marshalEvent(cut))
		}
		if m.Usage != nil {
			out = append(out, marshalEvent(&agent.Usage{Meta: main, Model: m.Model, Usage: *m.Usage, Cost: x.cost(m.Model, *m.Usage)}))
		}
	}
	for _, c := range comps {
		compaction(c)
	}
	end()
	failures(len(msgs))
	if x.usage != nil {
		out = append(out, marshalEvent(x.usage))
	}
	return out
}

// userCellEvents show a cell the user ran as it showed live: the code
// as it was asked and the user's edit ("edited by you"), its output with
// its images and time, and the files it changed (Review, Revert). All
// but the output come from the cell's record (ran), never from its note's
// text, which holds the cell's output; a session of an earlier version
// without them shows the code and output under the id fallback. What the
// record holds beyond the code (its run, and with it the files and their
// Review/Revert, the original, the images, the time) shows only when
// sealed (the agent's seal check; nil: none) says the record is whole:
// a session file changed on disk cannot re-point a cell at another
// action's checkpoint record.
func userCellEvents(n history.Note, ran *model.Ran, sealed func(model.Ran, string) bool, fallback string, changes map[string]*agent.FilesChanged) []json.RawMessage {
	code, failed, corr := n.Code, n.Error, fallback
	out := &agent.CodeExecutionOutput{Text: n.Output}
	original := ""
	if ran != nil {
		code, failed = ran.Code, ran.Error
	}
	if ran != nil && sealed != nil && sealed(*ran, "") {
		original = ran.Original
		out.Images, out.ElapsedMS = ran.Images, ran.ElapsedMS
		if ran.Run != "" {
			corr = ran.Run
		}
	}
	meta := agent.Meta{AgentID: agent.MainAgent, CorrelationID: corr}
	out.Meta, out.Error = meta, failed
	asked := code
	if original != "" {
		asked = original
	}
	evs := []json.RawMessage{marshalEvent(&agent.CellStarted{Meta: meta, Code: asked, Source: n.Source, Of: n.Of, Index: 1, Total: 1})}
	if original != "" {
		evs = append(evs, marshalEvent(&agent.CodeEdited{Meta: meta, Code: code}))
	}
	evs = append(evs, marshalEvent(out))
	if fc := changes[corr]; fc != nil && corr != fallback {
		evs = append(evs, marshalEvent(fc))
	}
	return evs
}
