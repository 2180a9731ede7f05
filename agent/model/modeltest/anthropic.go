package modeltest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/freeact/desktop/agent/model"
)

// The Anthropic Messages request shape.
type aRequest struct {
	Model     string          `json:"model"`
	MaxTokens int             `json:"max_tokens"`
	Stream    bool            `json:"stream"`
	System    json.RawMessage `json:"system"`
	Messages  []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
	} `json:"tools"`
	Thinking *struct {
		Type         string `json:"type"`
		BudgetTokens int    `json:"budget_tokens"`
	} `json:"thinking"`
}

type aBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Source    *aSource        `json:"source"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

type aSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

type anthropicWire struct{}

func (anthropicWire) decode(r *http.Request, body []byte) (Request, error) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		return Request{}, fmt.Errorf("not POST /v1/messages")
	}
	if r.Header.Get("anthropic-version") == "" {
		return Request{}, fmt.Errorf("no anthropic-version header")
	}
	var ar aRequest
	if err := json.Unmarshal(body, &ar); err != nil {
		return Request{}, fmt.Errorf("decode body: %w", err)
	}
	if !ar.Stream || ar.MaxTokens <= 0 {
		return Request{}, fmt.Errorf("want stream true and max_tokens > 0")
	}
	if ar.Thinking != nil && ar.Thinking.Type == "enabled" && ar.Thinking.BudgetTokens >= ar.MaxTokens {
		return Request{}, fmt.Errorf("max_tokens %d must exceed thinking.budget_tokens %d", ar.MaxTokens, ar.Thinking.BudgetTokens)
	}
	req := Request{Path: r.URL.Path, Model: ar.Model, APIKey: r.Header.Get("x-api-key"), Body: body}
	req.IncludeThoughts = ar.Thinking != nil && ar.Thinking.Type == "enabled"
	system, err := aBlocks(ar.System)
	if err != nil {
		return Request{}, fmt.Errorf("system: %w", err)
	}
	for _, b := range system {
		req.System += b.Text
	}
	for _, t := range ar.Tools {
		req.Tools = append(req.Tools, model.Tool{Name: t.Name, Description: t.Description, Parameters: t.InputSchema})
	}
	for i, m := range ar.Messages {
		msg, err := req.aMessage(m.Role, m.Content)
		if err != nil {
			return Request{}, fmt.Errorf("messages[%d]: %w", i, err)
		}
		req.Messages = append(req.Messages, msg)
	}
	return req, nil
}

// aBlocks decodes content that is a string or a list of blocks.
func aBlocks(raw json.RawMessage) ([]aBlock, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []aBlock{{Type: "text", Text: s}}, nil
	}
	var blocks []aBlock
	err := json.Unmarshal(raw, &blocks)
	return blocks, err
}

func (req *Request) aMessage(role string, content json.RawMessage) (model.Message, error) {
	m := model.Message{Role: model.RoleUser}
	switch role {
	case "user":
	case "assistant":
		m.Role = model.RoleModel
	default:
		return m, fmt.Errorf("role %q", role)
	}
	blocks, err := aBlocks(content)
	if err != nil {
		return m, err
	}
	if len(blocks) == 0 {
		return m, fmt.Errorf("empty content")
	}
	for _, b := range blocks {
		var p model.Part
		switch b.Type {
		case "text":
			if b.Text == "" {
				return m, fmt.Errorf("empty text block")
			}
			p.Text = b.Text
		case "thinking":
			if b.Signature == "" {
				return m, fmt.Errorf("thinking block without signature")
			}
			p.Text, p.Thought, p.Signature = b.Thinking, true, []byte(b.Signature)
		case "image", "document":
			img, err := aImage(b.Source)
			if err != nil {
				return m, err
			}
			p.Image = &img
		case "tool_use":
			p.FunctionCall = &model.FunctionCall{ID: b.ID, Name: b.Name, Args: model.ArgsJSON(b.Input)}
		case "tool_result":
			name := req.callName(b.ToolUseID)
			if name == "" {
				return m, fmt.Errorf("tool_result for unknown tool_use_id %q", b.ToolUseID)
			}
			fr := &model.FunctionResponse{ID: b.ToolUseID, Name: name, IsError: b.IsError}
			inner, err := aBlocks(b.Content)
			if err != nil {
				return m, fmt.Errorf("tool_result content: %w", err)
			}
			for _, ib := range inner {
				switch ib.Type {
				case "text":
					fr.Output += ib.Text
				case "image", "document":
					img, err := aImage(ib.Source)
					if err != nil {
						return m, err
					}
					fr.Images = append(fr.Images, img)
				}
			}
			p.FunctionResponse = fr
		default:
			return m, fmt.Errorf("block type %q", b.Type)
		}
		m.Parts = append(m.Parts, p)
	}
	return m, nil
}

func aImage(s *aSource) (model.Image, error) {
	if s == nil || s.Type != "base64" {
		return model.Image{}, fmt.Errorf("image needs a base64 source")
	}
	data, err := base64.StdEncoding.DecodeString(s.Data)
	if err != nil {
		return model.Image{}, fmt.Errorf("image data: %w", err)
	}
	return model.Image{MIMEType: s.MediaType, Data: data}, nil
}

func (anthropicWire) writeError(w http.ResponseWriter, e ErrorReply) {
	typ := map[int]string{400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
		404: "not_found_error", 429: "rate_limit_error", 529: "overloaded_error"}[e.Status]
	if typ == "" {
		typ = "api_error"
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(e.RetryAfter.Seconds())))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.Status)
	_ = json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": e.Message}})
}

func (anthropicWire) events(turn Turn, n int) []string {
	// Claude counts cache reads apart from input_tokens and thinking
	// inside output_tokens.
	in, cached, out := 0, 0, 1
	if turn.Usage != nil {
		in, cached, out = turn.Usage.Input-turn.Usage.Cached, turn.Usage.Cached, turn.Usage.Output+turn.Usage.Thinking
	}
	events := []string{
		frame("message_start", map[string]any{"type": "message_start", "message": map[string]any{
			"id": fmt.Sprintf("msg_fake_%d", n+1), "type": "message", "role": "assistant", "content": []any{},
			"model": "fake-claude", "stop_reason": nil, "usage": map[string]int{"input_tokens": in, "cache_read_input_tokens": cached, "output_tokens": 1},
		}}),
		frame("ping", map[string]string{"type": "ping"}),
	}
	delta := func(i int, d map[string]any) string {
		return frame("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": d})
	}
	usedTools := false
	for i, p := range turn.Reply {
		var start map[string]any
		var deltas []string
		switch {
		case p.Thought != "" || (p.Signature != "" && p.Text == "" && p.Call == nil):
			start = map[string]any{"type": "thinking", "thinking": ""}
			deltas = append(deltas, delta(i, map[string]any{"type": "thinking_delta", "thinking": p.Thought}))
			if p.Signature != "" {
				deltas = append(deltas, delta(i, map[string]any{"type": "signature_delta", "signature": p.Signature}))
			}
		case p.Text != "":
			start = map[string]any{"type": "text", "text": ""}
			deltas = append(deltas, delta(i, map[string]any{"type": "text_delta", "text": p.Text}))
		case p.Call != nil:
			usedTools = true
			id := p.Call.ID
			if id == "" {
				id = fmt.Sprintf("toolu_fake_%d_%d", n+1, i)
			}
			start = map[string]any{"type": "tool_use", "id": id, "name": p.Call.Name, "input": map[string]any{}}
			args := p.Call.argsText()
			half := len(args) / 2
			for _, piece := range []string{"", string(args[:half]), string(args[half:])} {
				deltas = append(deltas, delta(i, map[string]any{"type": "input_json_delta", "partial_json": piece}))
			}
		}
		events = append(events, frame("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": start}))
		events = append(events, deltas...)
		events = append(events, frame("content_block_stop", map[string]any{"type": "content_block_stop", "index": i}))
	}
	if turn.Then != "" {
		return events
	}
	stop := map[string]string{"": "end_turn", "stop": "end_turn", "max_tokens": "max_tokens", "safety": "refusal"}[turn.Finish]
	if usedTools && stop == "end_turn" {
		stop = "tool_use"
	}
	var stopReason any = stop
	if turn.Finish == "none" {
		stopReason = nil
	}
	return append(events,
		frame("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stopReason, "stop_sequence": nil},
			"usage": map[string]int{"output_tokens": out}}),
		frame("message_stop", map[string]string{"type": "message_stop"}),
	)
}
