package modeltest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/freeact/desktop/agent/model"
)

// The OpenAI chat completions request shape.
type oRequest struct {
	Model    string     `json:"model"`
	Stream   bool       `json:"stream"`
	Messages []oMessage `json:"messages"`
	Tools    []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
}

type oMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

type oContentPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url"`
	File *struct {
		Filename string `json:"filename"`
		FileData string `json:"file_data"`
	} `json:"file"`
}

type openAIWire struct{}

func (openAIWire) decode(r *http.Request, body []byte) (Request, error) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		return Request{}, fmt.Errorf("not POST /v1/chat/completions")
	}
	var or oRequest
	if err := json.Unmarshal(body, &or); err != nil {
		return Request{}, fmt.Errorf("decode body: %w", err)
	}
	if !or.Stream {
		return Request{}, fmt.Errorf("stream is not true")
	}
	req := Request{Path: r.URL.Path, Model: or.Model, APIKey: bearer(r.Header.Get("Authorization")), Body: body}
	for _, t := range or.Tools {
		if t.Type != "function" {
			return Request{}, fmt.Errorf("tool type %q", t.Type)
		}
		req.Tools = append(req.Tools, model.Tool{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
	}
	for i, m := range or.Messages {
		if err := req.addMessage(m); err != nil {
			return Request{}, fmt.Errorf("messages[%d]: %w", i, err)
		}
	}
	return req, nil
}

// addMessage appends an OpenAI message in neutral form; consecutive tool
// messages become one user message of function responses.
func (req *Request) addMessage(m oMessage) error {
	parts, err := contentParts(m.Content)
	if err != nil {
		return err
	}
	switch m.Role {
	case "system", "developer":
		for _, p := range parts {
			req.System += p.Text
		}
	case "user":
		req.Messages = append(req.Messages, model.Message{Role: model.RoleUser, Parts: parts})
	case "assistant":
		msg := model.Message{Role: model.RoleModel, Parts: parts}
		for _, tc := range m.ToolCalls {
			if tc.Type != "function" || tc.ID == "" {
				return fmt.Errorf("tool call needs type function and an id")
			}
			msg.Parts = append(msg.Parts, model.Part{FunctionCall: &model.FunctionCall{
				ID: tc.ID, Name: tc.Function.Name, Args: model.ArgsJSON([]byte(tc.Function.Arguments)),
			}})
		}
		req.Messages = append(req.Messages, msg)
	case "tool":
		if m.ToolCallID == "" {
			return fmt.Errorf("tool message without tool_call_id")
		}
		var text strings.Builder
		for _, p := range parts {
			text.WriteString(p.Text)
		}
		name := req.callName(m.ToolCallID)
		if name == "" {
			return fmt.Errorf("tool message answers unknown call %q", m.ToolCallID)
		}
		part := model.Part{FunctionResponse: &model.FunctionResponse{ID: m.ToolCallID, Name: name, Output: text.String()}}
		if n := len(req.Messages); n > 0 && len(req.Messages[n-1].FunctionResponses()) > 0 {
			req.Messages[n-1].Parts = append(req.Messages[n-1].Parts, part)
		} else {
			req.Messages = append(req.Messages, model.Message{Role: model.RoleUser, Parts: []model.Part{part}})
		}
	default:
		return fmt.Errorf("role %q", m.Role)
	}
	return nil
}

func (req *Request) callName(id string) string {
	for _, m := range req.Messages {
		for _, c := range m.FunctionCalls() {
			if c.ID == id {
				return c.Name
			}
		}
	}
	return ""
}

// contentParts decodes content that is null, a string or an array of parts.
func contentParts(raw json.RawMessage) ([]model.Part, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []model.Part{{Text: s}}, nil
	}
	var cps []oContentPart
	if err := json.Unmarshal(raw, &cps); err != nil {
		return nil, fmt.Errorf("content is neither a string nor parts: %w", err)
	}
	var parts []model.Part
	for _, cp := range cps {
		switch cp.Type {
		case "text":
			parts = append(parts, model.Part{Text: cp.Text})
		case "image_url":
			img, err := dataURL(cp.ImageURL.URL)
			if err != nil {
				return nil, err
			}
			parts = append(parts, model.Part{Image: &img})
		case "file":
			if cp.File == nil || cp.File.Filename == "" {
				return nil, fmt.Errorf("file part without a filename")
			}
			f, err := dataURL(cp.File.FileData)
			if err != nil {
				return nil, err
			}
			parts = append(parts, model.Part{Image: &f})
		default:
			return nil, fmt.Errorf("content part type %q", cp.Type)
		}
	}
	return parts, nil
}

func dataURL(u string) (model.Image, error) {
	rest, ok := strings.CutPrefix(u, "data:")
	mime, data, ok2 := strings.Cut(rest, ";base64,")
	if !ok || !ok2 {
		return model.Image{}, fmt.Errorf("image_url is not a base64 data URL")
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return model.Image{}, fmt.Errorf("image_url data: %w", err)
	}
	return model.Image{MIMEType: mime, Data: b}, nil
}

func (openAIWire) writeError(w http.ResponseWriter, e ErrorReply) {
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(e.RetryAfter.Seconds())))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.Status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"message": e.Message, "type": strings.ToLower(statusWord(e.Status)), "code": e.Status,
	}})
}

func (openAIWire) events(turn Turn, n int) []string {
	var events []string
	add := func(choice map[string]any, extra map[string]any) {
		ev := map[string]any{
			"id": fmt.Sprintf("chatcmpl-fake-%d", n+1), "object": "chat.completion.chunk",
			"model": "fake-openai", "choices": []any{},
		}
		if choice != nil {
			choice["index"] = 0
			ev["choices"] = []any{choice}
		}
		for k, v := range extra {
			ev[k] = v
		}
		events = append(events, frame("", ev))
	}
	add(map[string]any{"delta": map[string]any{"role": "assistant", "content": ""}}, nil)
	calls := 0
	for _, p := range turn.Reply {
		switch {
		case p.Thought != "":
			add(map[string]any{"delta": map[string]any{"reasoning_content": p.Thought}}, nil)
		case p.Text != "":
			add(map[string]any{"delta": map[string]any{"content": p.Text}}, nil)
		case p.Call != nil:
			id := p.Call.ID
			if id == "" {
				id = fmt.Sprintf("call_%d_%d", n+1, calls)
			}
			args := p.Call.argsText()
			half := len(args) / 2
			add(map[string]any{"delta": map[string]any{"tool_calls": []any{map[string]any{
				"index": calls, "id": id, "type": "function", "function": map[string]any{"name": p.Call.Name, "arguments": ""},
			}}}}, nil)
			for _, piece := range []string{string(args[:half]), string(args[half:])} {
				add(map[string]any{"delta": map[string]any{"tool_calls": []any{map[string]any{
					"index": calls, "function": map[string]any{"arguments": piece},
				}}}}, nil)
			}
			calls++
		}
	}
	if turn.Then != "" {
		return events
	}
	finish := map[string]string{"": "stop", "stop": "stop", "max_tokens": "length", "safety": "content_filter"}[turn.Finish]
	if calls > 0 && finish == "stop" {
		finish = "tool_calls"
	}
	if turn.Finish != "none" {
		add(map[string]any{"delta": map[string]any{}, "finish_reason": finish}, nil)
	}
	if u := turn.Usage; u != nil {
		add(nil, map[string]any{"usage": map[string]any{
			"prompt_tokens":             u.Input,
			"completion_tokens":         u.Output + u.Thinking,
			"total_tokens":              u.Input + u.Output + u.Thinking,
			"completion_tokens_details": map[string]int{"reasoning_tokens": u.Thinking},
			"prompt_tokens_details":     map[string]int{"cached_tokens": u.Cached},
		}})
	}
	return append(events, frame("", "[DONE]"))
}
