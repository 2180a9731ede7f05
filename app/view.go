package app

import (
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/model"
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

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		// Only the fixed types above are encoded here; they always encode.
		return json.RawMessage(`{"type":"Failed","agent_id":"main","error":"internal: event not encodable"}`)
	}
	return b
}

func dataURL(im model.Image) string {
	return "data:" + im.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(im.Data)
}

func userEvent(text string, images []model.Image) json.RawMessage {
	u := userMessage{Type: "UserMessage", AgentID: agent.MainAgent, Text: text}
	for _, im := range images {
		u.Images = append(u.Images, dataURL(im))
	}
	return mustJSON(u)
}

func marshalEvent(ev agent.Event) json.RawMessage {
	b, err := agent.MarshalEvent(ev)
	if err != nil {
		return mustJSON(map[string]string{"type": "Failed", "agent_id": agent.MainAgent, "error": err.Error()})
	}
	return b
}

// historyEvents renders a saved conversation as the events a live turn would
// have shown: prompts, thoughts, responses, tool calls and their results,
// and the token usage of each model message. Each user prompt starts a turn.
func historyEvents(msgs []model.Message) []json.RawMessage {
	var out []json.RawMessage
	open := false
	end := func() {
		if open {
			out = append(out, mustJSON(turnMarker{Type: "TurnEnded", AgentID: agent.MainAgent, History: true}))
			open = false
		}
	}
	main := agent.Meta{AgentID: agent.MainAgent}
	for _, m := range msgs {
		if len(m.FunctionResponses()) > 0 {
			for _, r := range m.FunctionResponses() {
				out = append(out, marshalEvent(&agent.ToolOutput{
					Meta:     agent.Meta{AgentID: agent.MainAgent, CorrelationID: r.ID},
					ToolName: r.Name, Content: r.Output, IsError: r.IsError,
				}))
			}
			continue
		}
		if m.Role == model.RoleUser {
			end()
			out = append(out, mustJSON(turnMarker{Type: "TurnStarted", AgentID: agent.MainAgent, History: true}))
			open = true
			var imgs []model.Image
			var text []string
			for _, p := range m.Parts {
				if p.Image != nil {
					if model.IsImage(p.Image.MIMEType) { // PDFs and audio are not shown inline
						imgs = append(imgs, *p.Image)
					}
				} else if p.Text != "" {
					text = append(text, p.Text)
				}
			}
			out = append(out, userEvent(strings.Join(text, "\n"), imgs))
			continue
		}
		for _, p := range m.Parts {
			switch {
			case p.FunctionCall != nil:
				out = append(out, mustJSON(toolCallEvent{
					Type: "ToolCall", AgentID: agent.MainAgent, CorrelationID: p.FunctionCall.ID,
					ToolName: p.FunctionCall.Name, Args: p.FunctionCall.Args,
				}))
			case p.Thought && p.Text != "":
				out = append(out, marshalEvent(&agent.Thoughts{Meta: main, Text: p.Text}))
			case p.Text != "":
				out = append(out, marshalEvent(&agent.Response{Meta: main, Text: p.Text}))
			}
		}
		if m.Usage != nil {
			out = append(out, marshalEvent(&agent.Usage{Meta: main, Model: m.Model, Usage: *m.Usage}))
		}
	}
	end()
	return out
}

// sessionTitle is the session list's title function: the first user prompt.
func sessionTitle(raw json.RawMessage) (string, bool) {
	m, ok, err := agent.DecodeSessionMessage(raw)
	if err != nil || !ok || m.Role != model.RoleUser || len(m.FunctionResponses()) > 0 {
		return "", false
	}
	t := strings.TrimSpace(m.Text())
	if t == "" {
		return "", false
	}
	return t, true
}
